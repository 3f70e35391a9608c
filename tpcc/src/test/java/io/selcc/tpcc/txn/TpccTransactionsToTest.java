package io.selcc.tpcc.txn;

class TpccTransactionsToTest extends TpccTransactionsContractTest {
    @Override
    String cc() {
        return "to";
    }
}
