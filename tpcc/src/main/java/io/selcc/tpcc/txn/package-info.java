/**
 * The five TPC-C transactions ([SPEC] 2.4-2.8): their inputs ({@link io.selcc.tpcc.txn.InputGenerator},
 * clauses 2.4.1, 2.5.1, 2.6.1, 2.7.1, 2.8.1), their bodies ({@link io.selcc.tpcc.txn.TpccTransactions},
 * which run inside a transaction the caller owns) and what each shows on the terminal (the result
 * records).
 *
 * <p>Money is long cents, tax and discount rates are ints in 1/10,000, timestamps are microseconds.
 * The only inexact step is New-Order's total, rounded half up to a cent once (see
 * {@link io.selcc.tpcc.txn.TpccTransactions#totalCents}).
 */
package io.selcc.tpcc.txn;
