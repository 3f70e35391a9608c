/**
 * Per-thread state that the hot paths read on every row and latch access: {@link io.selcc.threads.PerThread}
 * is a {@link java.lang.ThreadLocal} that threads started through {@link io.selcc.threads.EngineThread}
 * read from an array field instead of the thread's hash map.
 */
package io.selcc.threads;
