/**
 * The concurrency-control SPI. An algorithm module provides a {@link ConcurrencyControlProvider}
 * (registered with {@link java.util.ServiceLoader}); the engine picks it by name and never names an
 * algorithm itself. The engine resolves keys to record ids through its indexes; the algorithm decides
 * how tuples at record ids are read and written, and when writes become visible.
 */
package io.selcc.engine.cc;
