package io.selcc.tpcc;

import io.selcc.storage.TupleView;

import java.util.SplittableRandom;

/**
 * The spec's random functions ([SPEC] 2.1.5-2.1.6, 4.3.2) over one seeded stream. Not thread-safe:
 * one per thread, each split from the run's seed so a run can be replayed.
 */
public final class TpccRandom {
    static final int A_C_LAST = 255;
    static final int A_C_ID = 1023;
    static final int A_OL_I_ID = 8191;
    private static final byte[] LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
        .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
    private static final byte[] DIGITS = "0123456789".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);

    private static final byte[] ZIP_SUFFIX = "11111".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
    private static final byte[] ORIGINAL = "ORIGINAL".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
    /** The longest string drawn (C_DATA's 500). */
    private static final int MAX_STRING = 500;

    private final SplittableRandom random;
    private final Constants constants;
    private final byte[] scratch = new byte[MAX_STRING];

    /**
     * The run-time constants C of NURand ([SPEC] 2.1.6): one per field, shared by all terminals, and
     * C_LAST's load-time constant, whose distance from the run-time one must lie in [65, 119] but not
     * be 96 or 112 ([SPEC] 2.1.6.1).
     */
    public record Constants(int cLastLoad, int cLastRun, int cId, int olIId) {
        public Constants {
            checkRange("cLastLoad", cLastLoad, A_C_LAST);
            checkRange("cLastRun", cLastRun, A_C_LAST);
            checkRange("cId", cId, A_C_ID);
            checkRange("olIId", olIId, A_OL_I_ID);
            if (!validDelta(cLastLoad, cLastRun)) {
                throw new IllegalArgumentException("C_LAST delta must be in [65, 119] and not 96 or 112: cLastLoad="
                    + cLastLoad + " cLastRun=" + cLastRun + " delta=" + Math.abs(cLastLoad - cLastRun));
            }
        }

        /** Valid constants drawn from {@code seed}. */
        public static Constants random(long seed) {
            SplittableRandom r = new SplittableRandom(seed);
            int load = r.nextInt(A_C_LAST + 1);
            int run;
            do {
                run = r.nextInt(A_C_LAST + 1);
            } while (!validDelta(load, run));
            return new Constants(load, run, r.nextInt(A_C_ID + 1), r.nextInt(A_OL_I_ID + 1));
        }

        public static boolean validDelta(int load, int run) {
            int delta = Math.abs(load - run);
            return delta >= 65 && delta <= 119 && delta != 96 && delta != 112;
        }

        private static void checkRange(String name, int value, int a) {
            if (value < 0 || value > a) {
                throw new IllegalArgumentException("NURand constant out of range: " + name + "=" + value + " (0.." + a + ")");
            }
        }
    }

    public TpccRandom(long seed, Constants constants) {
        this.random = new SplittableRandom(seed);
        this.constants = constants;
    }

    public Constants constants() {
        return constants;
    }

    /** random(x, y): uniform over [x..y], both inclusive. */
    public int uniform(int x, int y) {
        return x + random.nextInt(y - x + 1);
    }

    /** NURand(A, x, y) with constant C ([SPEC] 2.1.6). */
    public static int nurand(SplittableRandom random, int a, int c, int x, int y) {
        int r1 = random.nextInt(a + 1);
        int r2 = x + random.nextInt(y - x + 1);
        return (((r1 | r2) + c) % (y - x + 1)) + x;
    }

    /** C_LAST number for the run: NURand(255, 0, 999) with C-Run. */
    public int lastNameNumberRun() {
        return nurand(random, A_C_LAST, constants.cLastRun(), 0, 999);
    }

    /** C_LAST number at load: NURand(255, 0, 999) with C-Load. */
    public int lastNameNumberLoad() {
        return nurand(random, A_C_LAST, constants.cLastLoad(), 0, 999);
    }

    /** C_ID: NURand(1023, 1, 3000). */
    public int customerId() {
        return nurand(random, A_C_ID, constants.cId(), 1, TpccScale.CUSTOMERS_PER_DISTRICT);
    }

    /** OL_I_ID: NURand(8191, 1, 100000). */
    public int itemId() {
        return nurand(random, A_OL_I_ID, constants.olIId(), 1, TpccScale.ITEMS);
    }

    /** a-string[x..y]: random letters, length uniform in [x..y] ([SPEC] 4.3.2.2); at most 500. */
    public String alphaString(int min, int max) {
        return scratchString(fillAlpha(min, max));
    }

    /** n-string[x..y]: random digits; at most 500. */
    public String numericString(int min, int max) {
        return scratchString(fillNumeric(min, max));
    }

    /** Zip code ([SPEC] 4.3.2.7): 4 random digits then "11111". */
    public String zip() {
        return scratchString(fillZip());
    }

    /** Two random upper-case letters (states). */
    public String state() {
        return scratchString(fillState());
    }

    /** I_DATA / S_DATA: a-string[26..50] with "ORIGINAL" at a random position in 10% of rows ([SPEC] 4.3.3.1). */
    public String data() {
        return scratchString(fillData());
    }

    // The loader's writers: the same values written straight into a row's column from the reused
    // buffer (a String per value was a seventh of the load).

    /** {@link #alphaString} into {@code column} of {@code row}. */
    public void alphaString(TupleView row, int column, int min, int max) {
        row.setString(column, scratch, 0, fillAlpha(min, max));
    }

    /** {@link #numericString} into {@code column} of {@code row}. */
    public void numericString(TupleView row, int column, int min, int max) {
        row.setString(column, scratch, 0, fillNumeric(min, max));
    }

    /** {@link #zip()} into {@code column} of {@code row}. */
    public void zip(TupleView row, int column) {
        row.setString(column, scratch, 0, fillZip());
    }

    /** {@link #state()} into {@code column} of {@code row}. */
    public void state(TupleView row, int column) {
        row.setString(column, scratch, 0, fillState());
    }

    /** {@link #data()} into {@code column} of {@code row}. */
    public void data(TupleView row, int column) {
        row.setString(column, scratch, 0, fillData());
    }

    // Each value is drawn once, here, into the scratch buffer; the methods above return its length's worth.

    private int fillAlpha(int min, int max) {
        int length = uniform(min, max);
        fill(scratch, 0, length, LETTERS);
        return length;
    }

    private int fillNumeric(int min, int max) {
        int length = uniform(min, max);
        fill(scratch, 0, length, DIGITS);
        return length;
    }

    private int fillZip() {
        int length = fillNumeric(4, 4);
        System.arraycopy(ZIP_SUFFIX, 0, scratch, length, ZIP_SUFFIX.length);
        return length + ZIP_SUFFIX.length;
    }

    private int fillState() {
        scratch[0] = (byte) ('A' + random.nextInt(26));
        scratch[1] = (byte) ('A' + random.nextInt(26));
        return 2;
    }

    private int fillData() {
        int length = fillAlpha(26, 50);
        if (random.nextInt(10) == 0) {
            int at = random.nextInt(length - ORIGINAL.length + 1);
            System.arraycopy(ORIGINAL, 0, scratch, at, ORIGINAL.length);
        }
        return length;
    }

    private String scratchString(int length) {
        return new String(scratch, 0, length, java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    /**
     * {@code length} characters drawn from {@code alphabet}, two per 64 random bits: each 32-bit half
     * scaled to the alphabet (bias below 2^-26). The loader draws tens of millions of characters; one
     * bounded draw per character and a char[] compressed to Latin-1 were 15% of its time.
     */
    private void fill(byte[] bytes, int from, int length, byte[] alphabet) {
        long bits = 0;
        for (int i = 0; i < length; i++) {
            if ((i & 1) == 0) {
                bits = random.nextLong();
            }
            bytes[from + i] = alphabet[(int) (((bits & 0xFFFF_FFFFL) * alphabet.length) >>> 32)];
            bits >>>= 32;
        }
    }

    /** A decimal in [min..max] with the given number of fraction digits, as an integer of that scale. */
    public long fixed(long min, long max) {
        return min + random.nextLong(max - min + 1);
    }

    /** A true with probability percent/100. */
    public boolean chance(int percent) {
        return random.nextInt(100) < percent;
    }

    /** A random permutation of 1..n (O_C_ID at load). */
    public int[] permutation(int n) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = i + 1;
        }
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
        return p;
    }

    /** A 64-bit value (seeds for sub-streams). */
    public long nextLong() {
        return random.nextLong();
    }

    SplittableRandom raw() {
        return random;
    }
}
