package io.selcc.threads;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * A {@link ThreadLocal} that an {@link EngineThread} (or a virtual thread it started) reads from a slot of its own array: the slot
 * holds this object and its value, so a hit is an array load and an identity compare. Two values
 * that map to the same slot take turns in it; the thread's {@code ThreadLocal} map keeps every value,
 * so a value pushed out of its slot is found there again, never lost or re-initialised.
 *
 * <p>Ids are handed out in order, so the few dozen values of one database never share a slot.
 */
public final class PerThread<T> extends ThreadLocal<T> {
    private static final AtomicInteger NEXT_ID = new AtomicInteger();
    /** What a virtual thread without engine slots reads (ScopedValue.orElse takes no null). */
    private static final Object[] NO_SLOTS = new Object[0];

    private final int slot = 2 * (NEXT_ID.getAndIncrement() & (EngineThread.SLOTS - 1));
    private final Supplier<? extends T> initial;

    private PerThread(Supplier<? extends T> initial) {
        this.initial = initial;
    }

    public static <T> PerThread<T> withInitial(Supplier<? extends T> initial) {
        if (initial == null) {
            throw new NullPointerException("initial");
        }
        return new PerThread<>(initial);
    }

    /** The slot this value uses in an engine thread's array (tests check collisions with it). */
    int slotIndex() {
        return slot;
    }

    @Override
    protected T initialValue() {
        return initial.get();
    }

    @Override
    @SuppressWarnings("unchecked")
    public T get() {
        Object[] slots = slotsOfCurrentThread();
        if (slots == null) {
            return super.get();
        }
        if (slots[slot] == this) {
            return (T) slots[slot + 1];
        }
        T value = super.get();
        slots[slot] = this;
        slots[slot + 1] = value;
        return value;
    }

    /** The calling thread's slot cache: an engine thread's field, a virtual engine thread's scoped value, or none. */
    private static Object[] slotsOfCurrentThread() {
        Thread current = Thread.currentThread();
        if (current instanceof EngineThread thread) {
            return thread.slots;
        }
        if (current.isVirtual()) {
            Object[] slots = EngineThread.VIRTUAL_SLOTS.orElse(NO_SLOTS); // one scoped-value lookup, not isBound + get
            return slots == NO_SLOTS ? null : slots;
        }
        return null;
    }

    @Override
    public void set(T value) {
        super.set(value);
        forgetSlot();
    }

    @Override
    public void remove() {
        super.remove();
        forgetSlot();
    }

    private void forgetSlot() {
        Object[] slots = slotsOfCurrentThread();
        if (slots != null && slots[slot] == this) {
            slots[slot] = null;
            slots[slot + 1] = null;
        }
    }
}
