package org.paratrain.comm.local;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A {@link Channel}'s long messages in flight, by ring slot: the array a sender lent (doubles or
 * words), where the payload starts in it, and the ticket of the last one delivered from the
 * slot. Its producer makes it at the first long message and publishes it with the ring's
 * {@code tail}. A consumer that reads the channel's reference to it while it is being set sees
 * null or the whole object (its fields are final), and either is right for a slot that lends
 * nothing; a slot that lends was published after the reference was set.
 */
final class Lent {
    private static final VarHandle DELIVERED = MethodHandles.arrayElementVarHandle(long[].class);
    private final Object[] arrays = new Object[Channel.CAPACITY];
    private final int[] offsets = new int[Channel.CAPACITY];
    private final long[] delivered = new long[Channel.CAPACITY];

    /** Producer: slot s lends {@code buf} from {@code offset} on. */
    void lend(int s, Object buf, int offset) {
        arrays[s] = buf;
        offsets[s] = offset;
    }

    /** {@return the array slot s lends, or null} */
    Object array(int s) {
        return arrays[s];
    }

    /** {@return where the payload of slot s starts in its array} */
    int offset(int s) {
        return offsets[s];
    }

    /** Consumer: slot s has been copied out; {@code ticket} is the one its producer waits on. */
    void deliver(int s, long ticket) {
        arrays[s] = null;
        DELIVERED.setVolatile(delivered, s, ticket);   // volatile: the caller's check for a parked sender comes after
    }

    /** {@return whether the rendezvous with {@code ticket} has been copied out} */
    boolean isDelivered(long ticket) {
        return (long) DELIVERED.getVolatile(delivered, (int) ((ticket - 1) & (Channel.CAPACITY - 1))) == ticket;
    }
}
