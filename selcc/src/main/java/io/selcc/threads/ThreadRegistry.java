package io.selcc.threads;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Values registered by the threads that use them (a counter block, a commit slot), read by a thread that
 * sums or scans them all. A value outlives its thread only until the next {@link #prune}: the engine is
 * called from any number of short-lived virtual threads, and a list that kept every thread's value would
 * grow for ever (and be scanned in full by every reader).
 *
 * <p>Pruning is amortised: {@link #register} prunes once the list has doubled since the last prune, so a
 * registry holds at most about twice the values of its live threads, and each registration costs O(1)
 * on average. A dead thread's value goes to the owner's {@code retire} callback (counters fold it into a
 * total) unless {@code keep} says it must stay (a slot still marking work in flight).
 *
 * <p>Registration, pruning and {@link #forEach} hold this registry's monitor: registration happens once
 * per thread, reads are rare (snapshots, checkpoints), so the monitor is never on a hot path. The values
 * themselves are written by their threads without it.
 */
public final class ThreadRegistry<T> {
    private final Consumer<T> retire;
    private final Predicate<T> keep;
    private final List<Thread> owners = new ArrayList<>();
    private final List<T> values = new ArrayList<>();
    /** Size at which the next registration prunes first. */
    private int pruneAt = 64;

    /**
     * @param retire receives the value of a thread that ended, under this registry's monitor
     * @param keep   true for a value that must stay although its thread ended
     */
    public ThreadRegistry(Consumer<T> retire, Predicate<T> keep) {
        this.retire = retire;
        this.keep = keep;
    }

    /**
     * A registry whose retired values are handed to later threads ({@link #registerReused}): for state that
     * holds shared resources (a heap table's open insert pages), which a thread that ended must not strand.
     */
    public static <T> ThreadRegistry<T> recycling() {
        java.util.ArrayDeque<T> spare = new java.util.ArrayDeque<>();
        ThreadRegistry<T> registry = new ThreadRegistry<>(spare::addLast, value -> false);
        registry.spare = spare;
        return registry;
    }

    /** Retired values waiting for a new thread (recycling registries only). */
    private java.util.ArrayDeque<T> spare;

    /** Registers {@code value} as the calling thread's; returns it. */
    public synchronized T register(T value) {
        pruneIfGrown();
        owners.add(Thread.currentThread());
        values.add(value);
        return value;
    }

    /**
     * Registers, as the calling thread's, the value of a thread that ended if there is one (recycling
     * registries), else a fresh one from {@code fresh}; returns it.
     */
    public synchronized T registerReused(java.util.function.Supplier<? extends T> fresh) {
        pruneIfGrown();
        T reused = spare == null ? null : spare.pollFirst();
        return register(reused != null ? reused : fresh.get());
    }

    private void pruneIfGrown() {
        if (values.size() >= pruneAt) {
            prune();
            pruneAt = Math.max(64, 2 * values.size());
        }
    }

    /** Retires the values of threads that ended (kept ones stay). */
    public synchronized void prune() {
        int kept = 0;
        for (int i = 0; i < values.size(); i++) {
            Thread owner = owners.get(i);
            T value = values.get(i);
            if (!owner.isAlive() && !keep.test(value)) {
                retire.accept(value);
                continue;
            }
            owners.set(kept, owner);
            values.set(kept, value);
            kept++;
        }
        owners.subList(kept, owners.size()).clear();
        values.subList(kept, values.size()).clear();
    }

    /** Runs {@code action} on every registered value, under this registry's monitor (no value is retired meanwhile). */
    public synchronized void forEach(Consumer<? super T> action) {
        values.forEach(action);
    }

    /** Values registered and not retired (tests: the registry stays bounded). */
    public synchronized int size() {
        return values.size();
    }
}
