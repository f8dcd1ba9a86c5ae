package org.paratrain;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The MPI fault tests' view of a job's processes: which rank a process is, from its environment. */
public final class RankProcesses {
    private RankProcesses() { }

    /**
     * {@return the MPI rank of {@code h} (Open MPI's or MPICH's variable), or -1 for a process that
     * is not a rank or is gone}
     * @param h a process of the job
     */
    public static int rankOf(ProcessHandle h) {
        try {
            for (String kv : Files.readString(Path.of("/proc", Long.toString(h.pid()), "environ")).split("\0")) {
                if (kv.startsWith("OMPI_COMM_WORLD_RANK=") || kv.startsWith("PMI_RANK=")) {
                    return Integer.parseInt(kv.substring(kv.indexOf('=') + 1));
                }
            }
        } catch (IOException | NumberFormatException e) {
            // Gone, or not a rank.
        }
        return -1;
    }
}
