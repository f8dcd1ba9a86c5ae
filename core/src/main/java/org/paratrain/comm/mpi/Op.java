package org.paratrain.comm.mpi;

/** What a rank is waiting in, as its progress record and the hang message name it. */
enum Op {
    NONE("nothing", false),
    SEND("send", false),
    RECEIVE("receive", false),
    SEND_RECEIVE("send-receive", false),
    BARRIER("barrier", true),
    ALLREDUCE("allreduce", true),
    BROADCAST("broadcast", true),
    REDUCE_SCATTER("reduce-scatter", true),
    ALLGATHER("allgather", true),
    FINALIZE("MPI_Finalize", true);

    private final String label;
    private final boolean collective;

    Op(String label, boolean collective) {
        this.label = label;
        this.collective = collective;
    }

    /** How a message names it. */
    String label() {
        return label;
    }

    /** True when every rank takes part, so the rank waited for is whichever has not arrived. */
    boolean collective() {
        return collective;
    }

    /** The operation of a code read from a progress record; {@link #NONE} for codes it does not know. */
    static Op of(int code) {
        Op[] all = values();
        return code >= 0 && code < all.length ? all[code] : NONE;
    }
}
