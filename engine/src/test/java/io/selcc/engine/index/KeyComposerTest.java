package io.selcc.engine.index;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link KeyComposer}: order preservation, round trips, range checks. */
class KeyComposerTest {

    /** A composer and two tuples that fit it. */
    record Case(List<Integer> bits, long[] a, long[] b) {
        KeyComposer composer() {
            KeyComposer.Builder builder = KeyComposer.builder();
            for (int i = 0; i < bits.size(); i++) {
                builder.field("f" + i, bits.get(i));
            }
            return builder.build();
        }

        @Override
        public String toString() {
            return "Case[bits=" + bits + " a=" + Arrays.toString(a) + " b=" + Arrays.toString(b) + "]";
        }
    }

    @Provide
    Arbitrary<Case> cases() {
        Arbitrary<List<Integer>> shapes = Arbitraries.integers().between(1, 40).list().ofMinSize(1).ofMaxSize(5)
            .filter(bits -> bits.stream().mapToInt(Integer::intValue).sum() <= KeyComposer.MAX_TOTAL_BITS);
        return shapes.flatMap(bits -> Combinators.combine(tuple(bits), tuple(bits)).as((a, b) -> new Case(bits, a, b)));
    }

    /** Values per field, biased to the edges (0, max) and to equal prefixes so ties in early fields happen. */
    private static Arbitrary<long[]> tuple(List<Integer> bits) {
        List<Arbitrary<Long>> fields = bits.stream()
            .map(b -> Arbitraries.frequencyOf(
                Tuple.of(1, Arbitraries.just(0L)),
                Tuple.of(1, Arbitraries.just((1L << b) - 1)),
                Tuple.of(2, Arbitraries.longs().between(0, Math.min(3, (1L << b) - 1))),
                Tuple.of(4, Arbitraries.longs().between(0, (1L << b) - 1))))
            .toList();
        return Combinators.combine(fields).as(values -> values.stream().mapToLong(Long::longValue).toArray());
    }

    @Property(tries = 2_000)
    void composePreservesLexicographicOrder(@ForAll("cases") Case c) {
        KeyComposer composer = c.composer();
        long ka = composer.compose(c.a());
        long kb = composer.compose(c.b());
        assertTrue(ka >= 0 && kb >= 0, "keys stay non-negative");
        assertEquals(Integer.signum(Arrays.compare(c.a(), c.b())), Integer.signum(Long.compare(ka, kb)), c.toString());
        for (int i = 0; i < c.a().length; i++) {
            assertEquals(c.a()[i], composer.field(ka, i), "round trip of field " + i);
        }
    }

    @Test
    void fixedArityMatchesVarargs() {
        KeyComposer k = KeyComposer.builder().field("w_id", 16).field("d_id", 8).field("o_id", 32).build();
        assertEquals(k.compose(new long[] {3, 7, 99}), k.compose(3, 7, 99));
        assertEquals((3L << 40) | (7L << 32) | 99, k.compose(3, 7, 99));
        assertEquals(255, k.maxValue(1));
        KeyComposer four = KeyComposer.builder().field("a", 1).field("b", 2).field("c", 3).field("d", 4).build();
        assertEquals(0b1_10_101_1001, four.compose(1, 2, 5, 9));
        KeyComposer one = KeyComposer.builder().field("id", 63).build();
        assertEquals(Long.MAX_VALUE, one.compose(Long.MAX_VALUE));
    }

    @Test
    void outOfRangeFieldsNameFieldAndValue() {
        KeyComposer k = KeyComposer.builder().field("w_id", 16).field("d_id", 4).build();
        IllegalArgumentException big = assertThrows(IllegalArgumentException.class, () -> k.compose(1, 16));
        assertTrue(big.getMessage().contains("field=d_id") && big.getMessage().contains("value=16"), big.getMessage());
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class, () -> k.compose(-1, 0));
        assertTrue(negative.getMessage().contains("field=w_id") && negative.getMessage().contains("value=-1"),
            negative.getMessage());
        assertThrows(IllegalArgumentException.class, () -> k.compose(1));
        assertThrows(IllegalArgumentException.class, () -> k.compose(1, 2, 3));
        assertThrows(IllegalArgumentException.class, () -> k.field(0, 2));
    }

    @Test
    void badShapesAreRefused() {
        IllegalArgumentException wide = assertThrows(IllegalArgumentException.class,
            () -> KeyComposer.builder().field("a", 32).field("b", 32).build());
        assertTrue(wide.getMessage().contains("totalBits=64"), wide.getMessage());
        assertThrows(IllegalArgumentException.class, () -> KeyComposer.builder().build());
        assertThrows(IllegalArgumentException.class, () -> KeyComposer.builder().field("a", 0).build());
        assertThrows(IllegalArgumentException.class, () -> KeyComposer.builder().field("a", 3).field("a", 3).build());
        assertThrows(NullPointerException.class, () -> KeyComposer.builder().field(null, 3));
    }
}
