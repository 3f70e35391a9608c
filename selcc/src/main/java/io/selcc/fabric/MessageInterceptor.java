package io.selcc.fabric;

/**
 * Fault injection for messages between compute nodes on the in-JVM fabric ({@link LocalFabric#interceptMessages}):
 * decides the fate of each request as a network could. Tests use it to lose and duplicate messages;
 * without one every message is delivered once.
 */
@FunctionalInterface
public interface MessageInterceptor {
    /** What happens to one request. */
    enum Fate {
        /** Delivered once, its reply returned. */
        DELIVER,
        /** Lost on the way: the receiver never sees it, the sender gets {@link MessageLost#REPLY}. */
        LOSE_REQUEST,
        /** Delivered and handled, but the reply is lost: the sender gets {@link MessageLost#REPLY}. */
        LOSE_REPLY,
        /** Delivered twice (a retransmission the network duplicated): the sender gets the second reply. */
        DUPLICATE
    }

    /** Called on the sender's thread for every request of every kind; must not block. */
    Fate fate(int fromNode, int toNode, MessageKind kind, Object request);
}
