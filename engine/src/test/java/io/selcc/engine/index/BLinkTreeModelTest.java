package io.selcc.engine.index;

import io.selcc.cache.SelccCluster;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NavigableSet;
import java.util.OptionalLong;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Random programs of inserts, deletes, lookups and scans against a {@link TreeSet} of (key, value)
 * pairs, unique and non-unique, alternating between two compute nodes that share the tree. Every
 * result must agree with the model, and the finished tree must pass the structural checker and hold
 * exactly the model's entries. jqwik prints the seed of a failing run and shrinks the program.
 */
class BLinkTreeModelTest {

    record Entry(long key, long value) implements Comparable<Entry> {
        @Override
        public int compareTo(Entry o) {
            int c = Long.compare(key, o.key);
            return c != 0 ? c : Long.compare(value, o.value);
        }
    }

    /** INSERT_RUN inserts {@code limit} consecutive keys from {@code key}: it grows the tree to 3+ levels quickly. */
    enum Kind { INSERT, INSERT_RUN, DELETE, LOOKUP, SCAN, SCAN_BACKWARD }

    /** One operation, run on compute node {@code node}; {@code key2} is a scan's high bound. */
    record Op(Kind kind, int node, long key, long value, long key2, int limit) {
        @Override
        public String toString() {
            return switch (kind) {
                case INSERT, DELETE -> kind + "@" + node + "(" + key + "," + value + ")";
                case INSERT_RUN -> kind + "@" + node + "(" + key + ".." + limit + " keys," + value + ")";
                case LOOKUP -> kind + "@" + node + "(" + key + ")";
                case SCAN, SCAN_BACKWARD -> kind + "@" + node + "[" + key + "," + key2 + "] limit " + limit;
            };
        }
    }

    record Program(boolean unique, List<Op> ops) {
    }

    /** Keys mostly from a small domain so inserts collide and deletes hit, plus the extremes. */
    private static Arbitrary<Long> keys() {
        return Arbitraries.frequencyOf(
            Tuple.of(20, Arbitraries.longs().between(-300, 300)),
            Tuple.of(1, Arbitraries.of(Long.MIN_VALUE, Long.MAX_VALUE, Long.MIN_VALUE + 1, Long.MAX_VALUE - 1)));
    }

    @Provide
    Arbitrary<Program> programs() {
        Arbitrary<Long> values = Arbitraries.frequencyOf(
            Tuple.of(10, Arbitraries.longs().between(0, 3)),
            Tuple.of(1, Arbitraries.of(Long.MIN_VALUE, Long.MAX_VALUE)));
        Arbitrary<Kind> kinds = Arbitraries.frequencyOf(
            Tuple.of(12, Arbitraries.just(Kind.INSERT)),
            Tuple.of(1, Arbitraries.just(Kind.INSERT_RUN)),
            Tuple.of(5, Arbitraries.just(Kind.DELETE)),
            Tuple.of(3, Arbitraries.just(Kind.LOOKUP)),
            Tuple.of(1, Arbitraries.just(Kind.SCAN)),
            Tuple.of(1, Arbitraries.just(Kind.SCAN_BACKWARD)));
        Arbitrary<Integer> limits = Arbitraries.frequencyOf(
            Tuple.of(3, Arbitraries.integers().between(0, 40)),
            Tuple.of(1, Arbitraries.just(Integer.MAX_VALUE)));
        Arbitrary<Op> op = Combinators.combine(kinds, Arbitraries.integers().between(0, 1), keys(), values, keys(), limits)
            .as(Op::new);
        // Uniform sizes: jqwik's default favours short lists, which rarely grow the tree past one level.
        Arbitrary<List<Op>> ops = op.list().ofMinSize(1).ofMaxSize(400).withSizeDistribution(RandomDistribution.uniform());
        return Combinators.combine(Arbitraries.of(true, false), ops).as(Program::new);
    }

    @Property(tries = 80)
    void agreesWithTreeSetModel(@ForAll("programs") Program program) {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(2).gclSize(BLinkTreeTest.SMALL_GCL)
            .cacheFrames(32).build()) {
            boolean unique = program.unique();
            BLinkTree created = BLinkTree.create(cluster.node(0), unique);
            BLinkTree[] trees = {created, BLinkTree.open(cluster.node(1), created.rootAddress())};
            NavigableSet<Entry> model = new TreeSet<>();
            int step = 0;
            for (Op op : program.ops()) {
                String where = "step " + step++ + " " + op;
                BLinkTree tree = trees[op.node()];
                switch (op.kind()) {
                    case INSERT -> {
                        boolean present = unique ? !keyRange(model, op.key(), op.key()).isEmpty()
                            : model.contains(new Entry(op.key(), op.value()));
                        InsertOutcome expected = !present ? InsertOutcome.INSERTED
                            : unique ? InsertOutcome.DUPLICATE_KEY : InsertOutcome.DUPLICATE_ENTRY;
                        assertEquals(expected, tree.insert(op.key(), op.value()), where);
                        if (!present) {
                            model.add(new Entry(op.key(), op.value()));
                        }
                    }
                    case INSERT_RUN -> {
                        for (long i = 0; i < op.limit() % 300 && op.key() <= Long.MAX_VALUE - i; i++) {
                            long k = op.key() + i;
                            boolean present = unique ? !keyRange(model, k, k).isEmpty() : model.contains(new Entry(k, op.value()));
                            InsertOutcome outcome = tree.insert(k, op.value());
                            assertEquals(present ? (unique ? InsertOutcome.DUPLICATE_KEY : InsertOutcome.DUPLICATE_ENTRY)
                                : InsertOutcome.INSERTED, outcome, where + " key=" + k);
                            if (!present) {
                                model.add(new Entry(k, op.value()));
                            }
                        }
                    }
                    case DELETE -> {
                        if (unique && op.value() % 2 == 0) { // delete(key) in half the unique cases
                            NavigableSet<Entry> hit = keyRange(model, op.key(), op.key());
                            assertEquals(!hit.isEmpty(), tree.delete(op.key()), where);
                            hit.clear();
                        } else {
                            assertEquals(model.remove(new Entry(op.key(), op.value())), tree.delete(op.key(), op.value()), where);
                        }
                    }
                    case LOOKUP -> {
                        NavigableSet<Entry> hit = keyRange(model, op.key(), op.key());
                        long[] expected = hit.stream().mapToLong(Entry::value).toArray();
                        assertEquals(toList(expected), toList(tree.lookupAll(op.key())), where);
                        if (unique) {
                            OptionalLong one = hit.isEmpty() ? OptionalLong.empty() : OptionalLong.of(hit.first().value());
                            assertEquals(one, tree.lookup(op.key()), where);
                        }
                    }
                    case SCAN, SCAN_BACKWARD -> {
                        boolean backward = op.kind() == Kind.SCAN_BACKWARD;
                        long low = op.key();
                        long high = op.key2();
                        List<Entry> expected = new ArrayList<>();
                        if (low <= high) {
                            NavigableSet<Entry> range = keyRange(model, low, high);
                            Iterator<Entry> it = backward ? range.descendingIterator() : range.iterator();
                            while (it.hasNext() && expected.size() < op.limit()) {
                                expected.add(it.next());
                            }
                        }
                        List<Entry> actual = new ArrayList<>();
                        EntryVisitor visitor = (k, v) -> actual.add(new Entry(k, v));
                        int n = backward ? tree.scanBackward(low, high, op.limit(), visitor)
                            : tree.scan(low, high, op.limit(), visitor);
                        assertEquals(expected, actual, where);
                        assertEquals(actual.size(), n, where);
                    }
                }
            }
            BLinkTreeChecker.Report report = BLinkTreeChecker.check(trees[1]);
            Statistics.label("height").collect(report.height());
            List<Entry> content = new ArrayList<>();
            for (int i = 0; i < report.entries(); i++) {
                content.add(new Entry(report.keys()[i], report.values()[i]));
            }
            assertEquals(new ArrayList<>(model), content, "final content");
        }
    }

    private static NavigableSet<Entry> keyRange(NavigableSet<Entry> model, long low, long high) {
        return model.subSet(new Entry(low, Long.MIN_VALUE), true, new Entry(high, Long.MAX_VALUE), true);
    }

    private static List<Long> toList(long[] values) {
        List<Long> list = new ArrayList<>(values.length);
        for (long v : values) {
            list.add(v);
        }
        return list;
    }
}
