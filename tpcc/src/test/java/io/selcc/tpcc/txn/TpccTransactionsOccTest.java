package io.selcc.tpcc.txn;

class TpccTransactionsOccTest extends TpccTransactionsContractTest {
    @Override
    String cc() {
        return "occ";
    }
}
