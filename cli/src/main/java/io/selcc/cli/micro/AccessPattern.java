package io.selcc.cli.micro;

import java.util.SplittableRandom;

/**
 * Which GCL one worker thread accesses next: with probability {@code locality}% the previous one again,
 * otherwise a fresh draw over the node's accessible GCLs, Zipf-distributed (ranks scrambled) when
 * skewed, uniform when {@code zipf} is null. Not thread-safe: one per worker, sharing its random source.
 */
final class AccessPattern {
    private static final int PERCENT = 100;

    private final GclSpace space;
    private final int node;
    private final ZipfGenerator zipf;
    private final Scramble scramble;
    private final int localityPercent;
    private final SplittableRandom random;
    private boolean hasPrevious;
    private long previous;

    /**
     * @param zipf ranks over {@code space.accessible()} items, or null for uniform
     * @param scramble permutation of {@code [0, space.accessible())}; used only with {@code zipf}
     */
    AccessPattern(GclSpace space, int node, ZipfGenerator zipf, Scramble scramble, int localityPercent,
                  SplittableRandom random) {
        this.space = space;
        this.node = node;
        this.zipf = zipf;
        this.scramble = scramble;
        this.localityPercent = localityPercent;
        this.random = random;
    }

    /** The global address of the next GCL to access. */
    long next() {
        if (hasPrevious && localityPercent > 0 && random.nextInt(PERCENT) < localityPercent) {
            return previous;
        }
        int index = (int) (zipf == null ? random.nextInt(space.accessible()) : scramble.apply(zipf.nextRank(random)));
        previous = space.address(node, index);
        hasPrevious = true;
        return previous;
    }
}
