package io.selcc.tpcc.driver;

import io.selcc.tpcc.txn.TxnType;
import org.junit.jupiter.api.Test;

import java.util.EnumMap;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MixTest {
    @Test
    void everyPassThroughTheDeckHasTheExactShares() {
        Mix.Deck deck = new Mix.Deck(Mix.STANDARD, new SplittableRandom(7));
        for (int pass = 0; pass < 5; pass++) {
            Map<TxnType, Integer> counts = new EnumMap<>(TxnType.class);
            for (int i = 0; i < Mix.STANDARD.total(); i++) {
                counts.merge(deck.draw(), 1, Integer::sum);
            }
            for (TxnType type : TxnType.values()) {
                assertEquals(Mix.STANDARD.weight(type), counts.getOrDefault(type, 0), type + " in pass " + pass);
            }
        }
    }

    @Test
    void passesAreShuffledAfresh() {
        Mix.Deck deck = new Mix.Deck(Mix.STANDARD, new SplittableRandom(7));
        StringBuilder first = new StringBuilder();
        StringBuilder second = new StringBuilder();
        for (int i = 0; i < 100; i++) {
            first.append(deck.draw().ordinal());
        }
        for (int i = 0; i < 100; i++) {
            second.append(deck.draw().ordinal());
        }
        assertNotEquals(first.toString(), second.toString());
    }

    @Test
    void parsingNamesTheProblem() {
        assertEquals(new Mix(0, 0, 100, 0, 0), Mix.parse("0,0,100,0,0"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Mix.parse("1,2")).getMessage().contains("5 weights"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Mix.parse("a,1,1,1,1")).getMessage().contains("weight=a"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Mix.parse("0,0,0,0,0")).getMessage().contains("all be 0"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Mix.parse("1,-1,1,1,1")).getMessage().contains(">= 0"));
    }

    @Test
    void thinkTimesAreTruncatedAtTenMeans() {
        SplittableRandom random = new SplittableRandom(3);
        double sum = 0;
        int n = 100_000;
        for (int i = 0; i < n; i++) {
            long t = WaitTimes.thinkNanos(TxnType.NEW_ORDER, random);
            assertTrue(t >= 0 && t <= 10 * WaitTimes.meanThinkNanos(TxnType.NEW_ORDER));
            sum += t;
        }
        double mean = sum / n / WaitTimes.meanThinkNanos(TxnType.NEW_ORDER);
        assertTrue(mean > 0.97 && mean < 1.03, "mean think time / spec mean = " + mean);
        assertEquals(18_000_000_000L, WaitTimes.keyingNanos(TxnType.NEW_ORDER));
    }
}
