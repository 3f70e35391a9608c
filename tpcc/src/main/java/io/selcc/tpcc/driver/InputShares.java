package io.selcc.tpcc.driver;

import io.selcc.tpcc.txn.InputGenerator;
import io.selcc.tpcc.txn.NewOrderInput;
import io.selcc.tpcc.txn.OrderStatusInput;
import io.selcc.tpcc.txn.PaymentInput;

import java.util.List;

/**
 * The input-variability figures of [SPEC] 5.5.1.5 over the measured interval, each with its allowed
 * range: a self-check that the driver submitted what the spec asks. One per terminal, merged at the end.
 */
public final class InputShares {
    long newOrders;
    long orderLines;
    long remoteOrderLines;
    long rollbacks;
    long payments;
    long remotePayments;
    long paymentsByName;
    long orderStatuses;
    long orderStatusesByName;
    long deliveries;
    long skippedDeliveries;

    /** One figure: its value and the range the spec allows. */
    public record Check(String name, double value, double min, double max, long sample) {
        public boolean within() {
            return sample == 0 || value >= min && value <= max;
        }
    }

    void newOrder(NewOrderInput in) {
        newOrders++;
        boolean rollback = in.itemIds()[in.lineCount() - 1] == InputGenerator.UNUSED_ITEM_ID;
        if (rollback) {
            rollbacks++;
        }
        orderLines += in.lineCount();
        for (int i = 0; i < in.lineCount(); i++) {
            if (in.supplyWarehouses()[i] != in.w()) {
                remoteOrderLines++;
            }
        }
    }

    void payment(PaymentInput in) {
        payments++;
        if (in.customerW() != in.w()) {
            remotePayments++;
        }
        if (in.byLastName()) {
            paymentsByName++;
        }
    }

    void orderStatus(OrderStatusInput in) {
        orderStatuses++;
        if (in.byLastName()) {
            orderStatusesByName++;
        }
    }

    void delivery(int skippedDistricts) {
        deliveries++;
        skippedDeliveries += skippedDistricts;
    }

    void merge(InputShares o) {
        newOrders += o.newOrders;
        orderLines += o.orderLines;
        remoteOrderLines += o.remoteOrderLines;
        rollbacks += o.rollbacks;
        payments += o.payments;
        remotePayments += o.remotePayments;
        paymentsByName += o.paymentsByName;
        orderStatuses += o.orderStatuses;
        orderStatusesByName += o.orderStatusesByName;
        deliveries += o.deliveries;
        skippedDeliveries += o.skippedDeliveries;
    }

    /**
     * The figures and their ranges. Remote shares only apply with more than one warehouse (with one
     * there is no other warehouse to pick), so their check is skipped then.
     */
    public List<Check> checks(int warehouses) {
        return checks(warehouses, false);
    }

    /**
     * {@link #checks(int)}; with {@code remoteLinesByKnob} the remote order lines follow the
     * cross-partition knob ({@code --distribution}), not the spec's 1%, and their check is skipped.
     */
    public List<Check> checks(int warehouses, boolean remoteLinesByKnob) {
        boolean remote = warehouses > 1;
        return List.of(
            new Check("New-Order rollbacks %", percent(rollbacks, newOrders), 0.9, 1.1, newOrders),
            new Check("order lines per order", newOrders == 0 ? 0 : (double) orderLines / newOrders, 9.5, 10.5, newOrders),
            new Check("remote order lines %", percent(remoteOrderLines, orderLines), 0.95, 1.05,
                remote && !remoteLinesByKnob ? orderLines : 0),
            new Check("remote Payments %", percent(remotePayments, payments), 14, 16, remote ? payments : 0),
            new Check("Payments by last name %", percent(paymentsByName, payments), 57, 63, payments),
            new Check("Order-Status by last name %", percent(orderStatusesByName, orderStatuses), 57, 63, orderStatuses),
            new Check("skipped deliveries %", percent(skippedDeliveries, deliveries * 10), 0, 1, deliveries));
    }

    private static double percent(long part, long whole) {
        return whole == 0 ? 0 : 100.0 * part / whole;
    }
}
