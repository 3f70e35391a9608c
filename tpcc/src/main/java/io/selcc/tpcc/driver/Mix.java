package io.selcc.tpcc.driver;

import io.selcc.tpcc.txn.TxnType;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The transaction mix as weights per type, drawn by a shuffled card deck ([SPEC] 5.2.4.2): a deck
 * holds {@code weight} cards of each type and every pass goes through it in a fresh random order, so
 * each type's share is exact over every pass. Default 45/43/4/4/4.
 */
public record Mix(int newOrder, int payment, int orderStatus, int delivery, int stockLevel) {
    public static final Mix STANDARD = new Mix(45, 43, 4, 4, 4);

    public Mix {
        int[] all = {newOrder, payment, orderStatus, delivery, stockLevel};
        for (int w : all) {
            if (w < 0) {
                throw new IllegalArgumentException("mix weights must be >= 0: mix=" + Arrays.toString(all));
            }
        }
        if (Arrays.stream(all).sum() == 0) {
            throw new IllegalArgumentException("mix weights must not all be 0: mix=" + Arrays.toString(all));
        }
    }

    /** Parses "45,43,4,4,4" (New-Order, Payment, Order-Status, Delivery, Stock-Level). */
    public static Mix parse(String text) {
        String[] parts = text.split(",");
        if (parts.length != 5) {
            throw new IllegalArgumentException("mix needs 5 weights (NewOrder,Payment,OrderStatus,Delivery,StockLevel): mix="
                + text);
        }
        int[] w = new int[5];
        for (int i = 0; i < 5; i++) {
            try {
                w[i] = Integer.parseInt(parts[i].trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("mix weight is not a whole number: mix=" + text + " weight=" + parts[i]);
            }
        }
        return new Mix(w[0], w[1], w[2], w[3], w[4]);
    }

    public int weight(TxnType type) {
        return switch (type) {
            case NEW_ORDER -> newOrder;
            case PAYMENT -> payment;
            case ORDER_STATUS -> orderStatus;
            case DELIVERY -> delivery;
            case STOCK_LEVEL -> stockLevel;
        };
    }

    public int total() {
        return newOrder + payment + orderStatus + delivery + stockLevel;
    }

    /** Share of {@code type} in percent. */
    public double share(TxnType type) {
        return 100.0 * weight(type) / total();
    }

    @Override
    public String toString() {
        return newOrder + "," + payment + "," + orderStatus + "," + delivery + "," + stockLevel;
    }

    /** One terminal's deck. Not thread-safe. */
    static final class Deck {
        private final TxnType[] cards;
        private final SplittableRandom random;
        private int next;

        Deck(Mix mix, SplittableRandom random) {
            this.random = random;
            this.cards = new TxnType[mix.total()];
            int at = 0;
            for (TxnType type : TxnType.values()) {
                for (int i = 0; i < mix.weight(type); i++) {
                    cards[at++] = type;
                }
            }
            shuffle();
        }

        TxnType draw() {
            if (next == cards.length) {
                shuffle();
            }
            return cards[next++];
        }

        private void shuffle() {
            for (int i = cards.length - 1; i > 0; i--) {
                int j = random.nextInt(i + 1);
                TxnType t = cards[i];
                cards[i] = cards[j];
                cards[j] = t;
            }
            next = 0;
        }
    }
}
