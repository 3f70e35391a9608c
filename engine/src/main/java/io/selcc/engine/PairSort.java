package io.selcc.engine;

/**
 * Sorts pairs held in two parallel arrays by (first, second), both {@link Long#compare}, in place and
 * without allocating. Input that is already sorted, as a loader's mostly is, costs one pass.
 */
final class PairSort {
    private static final int INSERTION_MAX = 24;

    private PairSort() {
    }

    static void sort(long[] a, long[] b, int n) {
        if (n > a.length || n > b.length) {
            throw new IllegalArgumentException("n=" + n + " exceeds the arrays: " + a.length + ", " + b.length);
        }
        if (!isSorted(a, b, n)) {
            quicksort(a, b, 0, n - 1);
        }
    }

    static boolean isSorted(long[] a, long[] b, int n) {
        for (int i = 1; i < n; i++) {
            if (compare(a, b, i - 1, i) > 0) {
                return false;
            }
        }
        return true;
    }

    private static int compare(long[] a, long[] b, int i, int j) {
        int c = Long.compare(a[i], a[j]);
        return c != 0 ? c : Long.compare(b[i], b[j]);
    }

    /** Hoare partition around the median of three; recurses into the smaller side, so depth is O(log n). */
    private static void quicksort(long[] a, long[] b, int lo, int hi) {
        while (hi - lo >= INSERTION_MAX) {
            int mid = (lo + hi) >>> 1;
            if (compare(a, b, mid, lo) < 0) {
                swap(a, b, mid, lo);
            }
            if (compare(a, b, hi, lo) < 0) {
                swap(a, b, hi, lo);
            }
            if (compare(a, b, hi, mid) < 0) {
                swap(a, b, hi, mid);
            }
            long pivotA = a[mid];
            long pivotB = b[mid];
            int i = lo - 1;
            int j = hi + 1;
            while (true) {
                do {
                    i++;
                } while (less(a[i], b[i], pivotA, pivotB));
                do {
                    j--;
                } while (less(pivotA, pivotB, a[j], b[j]));
                if (i >= j) {
                    break;
                }
                swap(a, b, i, j);
            }
            if (j - lo < hi - j) {
                quicksort(a, b, lo, j);
                lo = j + 1;
            } else {
                quicksort(a, b, j + 1, hi);
                hi = j;
            }
        }
        for (int i = lo + 1; i <= hi; i++) {
            for (int j = i; j > lo && compare(a, b, j - 1, j) > 0; j--) {
                swap(a, b, j - 1, j);
            }
        }
    }

    private static boolean less(long a1, long b1, long a2, long b2) {
        return a1 < a2 || (a1 == a2 && b1 < b2);
    }

    private static void swap(long[] a, long[] b, int i, int j) {
        long t = a[i];
        a[i] = a[j];
        a[j] = t;
        t = b[i];
        b[i] = b[j];
        b[j] = t;
    }
}
