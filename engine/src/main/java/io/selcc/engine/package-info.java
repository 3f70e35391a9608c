/**
 * The engine: a {@link io.selcc.engine.Database} of tables with B-link tree indexes over SELCC,
 * opened from any compute node, and serializable {@link io.selcc.engine.Transaction}s whose
 * concurrency control is a plug-in found by name ({@link io.selcc.engine.cc}).
 */
package io.selcc.engine;
