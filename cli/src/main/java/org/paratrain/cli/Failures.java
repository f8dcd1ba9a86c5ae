package org.paratrain.cli;

import java.io.UncheckedIOException;
import java.util.Locale;
import org.paratrain.comm.BackendException;
import org.paratrain.comm.RankFailedException;
import org.paratrain.data.DataFormatException;
import org.paratrain.data.NotEnoughMemoryException;
import org.paratrain.io.Clip;
import org.paratrain.train.DivergenceException;
import org.paratrain.train.TrainingException;
import org.paratrain.train.spec.SpecException;

/**
 * What a command's failure means to the user: one line and an exit status (2 for a bad option
 * value, 1 for bad input data or a failed run). Failures arrive wrapped (a rank's error inside
 * {@link RankFailedException}, a class's failed static initialisation inside an
 * {@link ExceptionInInitializerError}); the cause that says what to do is looked for down the
 * chain. Anything not recognised is a bug in paratrain and keeps its stack trace.
 */
final class Failures {
    private Failures() { }

    /** A failure as the user sees it; {@code message} is null for a bug (status 3, stack trace). */
    record Outcome(int status, String message) { }

    static Outcome describe(Throwable e) {
        String rank = e instanceof RankFailedException rf ? "rank " + rf.rank() + ": " : "";
        OutOfMemoryError oom = find(e, OutOfMemoryError.class);
        if (oom != null) {
            return new Outcome(1, rank + outOfMemory(oom));
        }
        NotEnoughMemoryException heap = find(e, NotEnoughMemoryException.class);
        if (heap != null) {
            return new Outcome(1, heap.getMessage() + "; " + advice(heap.heapNeeded()) + " or more");
        }
        BackendException backend = find(e, BackendException.class);
        if (backend != null) {
            return new Outcome(1, backend.getMessage());
        }
        String initFailure = initFailure(e);
        if (initFailure != null) {
            return new Outcome(1, initFailure);
        }
        Throwable t = e instanceof RankFailedException rf && rf.getCause() instanceof DivergenceException d ? d : e;
        if (t instanceof SpecException s) {
            return new Outcome(2, SpecOptions.message(s));
        }
        if (t instanceof IllegalArgumentException) {
            return new Outcome(2, t.getMessage());
        }
        if (t instanceof DataFormatException || t instanceof DivergenceException || t instanceof RankFailedException
            || t instanceof UncheckedIOException || t instanceof TrainingException) {
            return new Outcome(1, t.getMessage());
        }
        return new Outcome(3, null);
    }

    /** Whether {@code e} is a failure {@link #describe} puts in words (errors other than these are rethrown). */
    static boolean known(Error e) {
        return find(e, OutOfMemoryError.class) != null || find(e, BackendException.class) != null
            || initFailure(e) != null;
    }

    private static String outOfMemory(OutOfMemoryError e) {
        long max = Runtime.getRuntime().maxMemory();
        String what = e.getMessage() == null || e.getMessage().isBlank() ? "" : " (" + e.getMessage() + ")";
        return "out of memory" + what + ": the Java heap, at most " + NotEnoughMemoryException.size(max)
            + ", is too small for this run; " + advice(2 * max);
    }

    /** How to give the JVM {@code bytes} of heap (rounded up to whole gigabytes) through the launcher. */
    static String advice(long bytes) {
        long gb = Math.max(1, (bytes + (1L << 30) - 1) >> 30);
        return String.format(Locale.ROOT, "give Java more memory, e.g. PARATRAIN_JAVA_OPTS=-Xmx%dg", gb);
    }

    /**
     * A class whose static initialiser failed: the first use throws
     * {@link ExceptionInInitializerError} with the cause; every later use throws
     * {@link NoClassDefFoundError}, which (since Java 18) carries the first failure only as text.
     */
    private static String initFailure(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ExceptionInInitializerError || t instanceof NoClassDefFoundError) {
                String m = String.valueOf(t.getMessage());
                int at = m.indexOf(BackendException.class.getName() + ": ");
                if (at >= 0) {
                    String rest = m.substring(at + BackendException.class.getName().length() + 2);
                    int thread = rest.lastIndexOf(" [in thread");
                    return thread >= 0 ? rest.substring(0, thread) : rest;
                }
            }
        }
        return null;
    }

    private static <T extends Throwable> T find(Throwable e, Class<T> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return null;
    }

    /** A Java class name that a wrapped exception put before its cause's message: not the user's words. */
    private static final java.util.regex.Pattern CLASS_PREFIX = java.util.regex.Pattern.compile(
        "^(?:[a-z][a-z0-9_]*\\.)+[A-Z][A-Za-z0-9_$]*(?:Exception|Error): ");

    /** The message, one line and cut where a value ran long, without exception class names before it. */
    static String line(String message) {
        String m = message;
        while (m != null) {
            java.util.regex.Matcher cls = CLASS_PREFIX.matcher(m);
            if (!cls.find()) {
                break;
            }
            m = m.substring(cls.end());
        }
        return Clip.message(m);
    }
}
