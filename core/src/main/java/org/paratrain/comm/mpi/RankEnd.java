package org.paratrain.comm.mpi;

import java.util.List;

/**
 * How one rank process ended, as the launcher reported it: which rank (or only its PID, which
 * is all MPICH's hydra says), on which host, and by which signal or exit status.
 *
 * @param rank   the rank, or -1 if the launcher did not say
 * @param pid    the process id, or 0 if the launcher did not say (Open MPI 4.1 prints 0)
 * @param host   the host name, or null
 * @param signal the signal that ended it, or 0
 * @param status the exit status when it ended without a signal, or -1 when not known
 */
record RankEnd(int rank, long pid, String host, int signal, int status) {
    /** Linux's signal numbers 1 to 31, by name. */
    private static final List<String> SIGNALS = List.of("SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP",
        "SIGABRT", "SIGBUS", "SIGFPE", "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM",
        "SIGSTKFLT", "SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG", "SIGXCPU",
        "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO", "SIGPWR", "SIGSYS");

    /** The name of signal {@code n}, such as SIGKILL; "signal N" for numbers it does not know. */
    static String signalName(int n) {
        return n >= 1 && n <= SIGNALS.size() ? SIGNALS.get(n - 1) : "signal " + n;
    }

    /** The same end, with what a progress record adds where the launcher did not say. */
    RankEnd with(int rank, long pid) {
        return new RankEnd(this.rank >= 0 ? this.rank : rank, this.pid > 0 ? this.pid : pid, host, signal, status);
    }

    /**
     * The one line the launching process prints, such as {@code paratrain: rank 1 (pid 4242 on
     * node7) was killed by SIGKILL in epoch 57; the job was ended}.
     *
     * @param epoch the epoch from the rank's progress record, or 0 when not known
     */
    String message(long epoch) {
        return message(epoch, 1);
    }

    /**
     * As {@link #message(long)}, for a job whose processes hold {@code ranksPerProcess} ranks
     * each: {@code paratrain: ranks 4-7 (process 1, pid 4242 on node7) were killed by SIGKILL ...}.
     *
     * @param epoch           the epoch from the process's progress record, or 0 when not known
     * @param ranksPerProcess ranks each process holds
     */
    String message(long epoch, int ranksPerProcess) {
        boolean several = ranksPerProcess > 1 && rank >= 0;
        StringBuilder m = new StringBuilder("paratrain: ").append(rank < 0 ? "a rank" : several
            ? "ranks " + rank * ranksPerProcess + "-" + (rank * ranksPerProcess + ranksPerProcess - 1) : "rank " + rank);
        String where = (several ? "process " + rank + (pid > 0 || host != null ? ", " : "") : "")
            + (pid > 0 ? "pid " + pid : "") + (host != null ? (pid > 0 ? " on " : "on ") + host : "");
        if (!where.isEmpty()) {
            m.append(" (").append(where).append(')');
        }
        if (signal > 0) {
            m.append(several ? " were killed by " : " was killed by ").append(signalName(signal));
        } else if (status > 128 && status <= 128 + SIGNALS.size()) {
            // A JVM ended by a signal runs its shutdown hooks and exits with 128 + the signal's number.
            m.append(" ended on ").append(signalName(status - 128)).append(" (exit status ").append(status).append(')');
        } else if (status >= 0) {
            m.append(" ended with exit status ").append(status);
        } else {
            m.append(" ended before the others");
        }
        if (epoch > 0) {
            m.append(" in epoch ").append(epoch);
        }
        return m.append("; the job was ended").toString();
    }
}
