package org.paratrain.comm.tcp;

import java.util.ArrayList;

/**
 * Messages that arrived before a receive asked for them, from one peer (or from this rank to
 * itself), in arrival order; and the spent ones, kept for reuse. A rank that runs the same
 * collectives step after step meets the same early messages, so after the first steps they cost
 * a copy and no garbage.
 */
final class EarlyMessages {
    /** Spent messages kept for reuse: enough for the few a collective has in flight. */
    private static final int KEEP = 16;
    private final ArrayList<Message> queued = new ArrayList<>();
    private final ArrayList<Message> spare = new ArrayList<>();

    /** One message: its tag, kind, values, and how many of them have arrived. */
    static final class Message {
        int tag;
        int kind;
        int length;
        int done;
        Object values;

        boolean complete() {
            return done == length;
        }

        int capacity() {
            return values instanceof long[] w ? w.length : ((double[]) values).length;
        }
    }

    /** {@return a message queued after the others, with room for {@code length} values of {@code kind}} */
    Message add(int tag, int kind, int length) {
        Message m = null;
        for (int i = spare.size() - 1; i >= 0; i--) {
            Message s = spare.get(i);
            if ((s.values instanceof long[]) == (kind == PeerLink.KIND_LONGS) && s.capacity() >= length) {
                m = spare.remove(i);
                break;
            }
        }
        if (m == null) {
            m = new Message();
            int room = Math.max(8, Integer.highestOneBit(Math.max(1, length - 1)) << 1);
            room = length <= room ? room : length;
            m.values = kind == PeerLink.KIND_LONGS ? new long[room] : new double[room];
        }
        m.tag = tag;
        m.kind = kind;
        m.length = length;
        m.done = 0;
        queued.add(m);
        return m;
    }

    /** {@return the first queued message with {@code tag}, complete or not, or null} */
    Message first(int tag) {
        for (int i = 0; i < queued.size(); i++) {
            Message m = queued.get(i);
            if (m.tag == tag) {
                return m;
            }
        }
        return null;
    }

    /** Takes {@code m} off the queue once its values have been copied out. */
    void spend(Message m) {
        queued.remove(m);
        if (spare.size() < KEEP) {
            spare.add(m);
            return;
        }
        // Full: keep the larger arrays, which are the costly ones to make again.
        int smallest = 0;
        for (int i = 1; i < spare.size(); i++) {
            if (spare.get(i).capacity() < spare.get(smallest).capacity()) {
                smallest = i;
            }
        }
        if (spare.get(smallest).capacity() < m.capacity()) {
            spare.set(smallest, m);
        }
    }
}
