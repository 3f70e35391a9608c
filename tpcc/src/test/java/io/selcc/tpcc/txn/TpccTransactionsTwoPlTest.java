package io.selcc.tpcc.txn;

class TpccTransactionsTwoPlTest extends TpccTransactionsContractTest {
    @Override
    String cc() {
        return "2pl";
    }
}
