/**
 * The {@code selcc} command line: {@link io.selcc.cli.SelccCli} is the entry point and owns exit
 * codes and error reporting; each benchmark is a picocli subcommand in its own package
 * ({@code io.selcc.cli.micro}). What several subcommands share lives here: the cluster and run flags
 * (picocli mixins that validate into {@link io.selcc.cli.ClusterSettings} and
 * {@link io.selcc.cli.RunSettings}), flag value converters, and a small JSON writer.
 */
package io.selcc.cli;
