/**
 * {@code selcc micro}: the micro-benchmark of paper section 7.1 (after Cai et al., GAM). Threads on
 * every compute node lock single GCLs by global address, with tunable sharing ratio, read ratio,
 * Zipf skew and access locality. Only {@link io.selcc.cli.micro.MicroCommand} is public; the rest
 * (address space, access pattern, workers, report) is package-private.
 */
package io.selcc.cli.micro;
