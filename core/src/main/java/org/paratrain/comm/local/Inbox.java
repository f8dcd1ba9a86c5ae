package org.paratrain.comm.local;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The channels into one rank, keyed by the rank that sends, each made the first time either
 * end of it is used.
 *
 * <p>Why not a channel per ordered pair made up front: p^2 channels of 2 KB took 2 GB at 1,024
 * ranks and 34 GB at 4,096, while a job's ranks talk to few peers: two in a ring, about log2 p
 * in a tree, recursive doubling or the barrier, all of them only at the root of the paper's
 * master-worker scheme. Channels made on use cost memory in proportion to the
 * pairs that talk, and an inbox without any costs a table of 16 references.
 *
 * <p>The table is open addressing with linear probing, at most half full until it has a slot
 * per rank of the job. Looking up an existing channel takes no lock and allocates nothing;
 * making one takes this inbox's lock. A slot, once set, never changes, and a table that is
 * replaced by a larger one is left intact, so a lookup racing an insertion either finds the
 * channel or misses it and looks again under the lock. The index of source s is s itself
 * whenever {@code s < length}: with at most as many ranks as slots (every job of up to 16
 * ranks, and every table grown to p slots), each channel sits in its own slot and a lookup
 * reads one slot.
 */
final class Inbox {
    /** Slots of a new table: enough that a job of up to 16 ranks never grows one. */
    static final int INITIAL = 16;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Channel[].class);
    /** The ranks of the job: keys are {@code 0..ranks-1}. */
    private final int ranks;
    /** Replaced (under the lock) by a table twice as long; a reader may still probe an old one. */
    private volatile Channel[] table = new Channel[INITIAL];
    /** Channels in the table; guarded by this. */
    private int count;

    Inbox(int ranks) {
        this.ranks = ranks;
    }

    /** {@return the channel from {@code source}, made if it is the first use} */
    Channel channel(int source) {
        Channel[] t = table;
        int mask = t.length - 1;
        for (int i = index(source, t.length); ; i = (i + 1) & mask) {
            // Acquire: a channel set by another thread is seen whole (a plain load on x86).
            Channel c = (Channel) SLOT.getAcquire(t, i);
            if (c == null) {
                return add(source);
            }
            if (c.source == source) {
                return c;
            }
        }
    }

    /** {@return the channels made so far} */
    synchronized int count() {
        return count;
    }

    /**
     * The slot to start probing at: the source itself when it fits (no collisions for a table
     * of p slots), else its low bits folded with its high ones, so that sources that differ
     * only above the mask (recursive doubling's {@code rank ^ 2^k}) spread out.
     */
    private static int index(int source, int length) {
        int bits = Integer.numberOfTrailingZeros(length);
        return (source ^ (source >>> bits) ^ (source >>> bits >>> bits)) & (length - 1);   // two shifts: each < 32
    }

    /** Looks again under the lock, and makes the channel if it is still missing. */
    private synchronized Channel add(int source) {
        Channel[] t = table;
        int i = find(t, source);
        Channel c = (Channel) SLOT.getAcquire(t, i);
        if (c != null) {
            return c;
        }
        c = new Channel(source);
        count++;
        if (2 * count > t.length && t.length < ranks) {
            table = grown(t, c);    // volatile: publishes the filled table
        } else {
            SLOT.setRelease(t, i, c);
        }
        return c;
    }

    /** The slot holding {@code source} in {@code t}, or the empty slot where it belongs. */
    private static int find(Channel[] t, int source) {
        int mask = t.length - 1;
        int i = index(source, t.length);
        while (t[i] != null && t[i].source != source) {
            i = (i + 1) & mask;
        }
        return i;
    }

    /** A table twice as long holding every channel of {@code t} and {@code added}. */
    private static Channel[] grown(Channel[] t, Channel added) {
        Channel[] g = new Channel[2 * t.length];
        for (Channel c : t) {
            if (c != null) {
                g[find(g, c.source)] = c;
            }
        }
        g[find(g, added.source)] = added;
        return g;
    }
}
