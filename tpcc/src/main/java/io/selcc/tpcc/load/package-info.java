/**
 * The initial population of [SPEC] 4.3.3.1: {@link io.selcc.tpcc.load.TpccLoader} splits it into units
 * of work (item chunks; per warehouse its row and stock chunks; per district its row, customers,
 * history, orders, order-lines and new-orders), each with its own random stream derived from the seed
 * and the unit's ids, and loads the units in parallel on every compute node. The data depends only on
 * the seed and the constants, never on how many threads or nodes load it.
 */
package io.selcc.tpcc.load;
