/**
 * Heap storage over SELCC: schemas of fixed-width columns, the tuple layout with its small
 * concurrency-control header, heap tables whose pages are GCLs filled in insertion order, record ids
 * that encode GCL address and slot, and a flyweight to read and write tuples in a latched page.
 *
 * <p>This layer never decides when latches are released: callers (the engine and its CC algorithms)
 * latch pages through {@link io.selcc.cache.ComputeNode} and pass the {@link io.selcc.cache.GclHandle}.
 * The one exception is slot allocation, which takes a short X latch on the page it fills.
 */
package io.selcc.storage;
