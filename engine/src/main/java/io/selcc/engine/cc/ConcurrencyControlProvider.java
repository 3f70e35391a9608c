package io.selcc.engine.cc;

/** Service interface: one per algorithm module, found by {@link #name()}. */
public interface ConcurrencyControlProvider {
    /** Lower-case name users pick the algorithm by, e.g. "2pl", "to", "occ". */
    String name();

    /** The algorithm's instance for one compute node. */
    ConcurrencyControl create(CcEnvironment environment);
}
