package org.paratrain.spark;

/**
 * A Spark ML stage's uid while its Scala superclasses are being built. Their params are made in
 * the superclass constructor and ask for {@code uid()} there, before a Java subclass's fields
 * are set; so each constructor hands its uid over here first ({@code super(Uids.pending(uid))})
 * and {@code uid()} answers from here until its field is set.
 */
final class Uids {
    private static final ThreadLocal<String> PENDING = new ThreadLocal<>();

    private Uids() { }

    /** {@return {@code uid}, kept for this thread's {@link #or} until {@link #done}} */
    static String pending(String uid) {
        PENDING.set(uid);
        return uid;
    }

    /** {@return the field's value once set, else the uid being constructed on this thread} */
    static String or(String field) {
        return field != null ? field : PENDING.get();
    }

    /** The constructor has set its field. */
    static void done() {
        PENDING.remove();
    }
}
