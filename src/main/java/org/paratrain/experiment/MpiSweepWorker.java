package org.paratrain.experiment;

import com.fasterxml.jackson.databind.node.ArrayNode;
import java.nio.file.Path;
import org.paratrain.comm.mpi.MpiCommunicator;
import org.paratrain.data.Dataset;
import org.paratrain.data.PaperFormat;
import org.paratrain.io.AtomicFiles;
import org.paratrain.train.LossReduction;
import org.paratrain.train.TrainConfig;
import org.paratrain.train.Training;
import org.paratrain.train.TrainingResult;

/**
 * The program every MPI rank runs for one node count of a sweep: warm-up runs, then timed
 * runs, all in one MPI job so that JVM start-up and JIT compilation are paid once and not
 * timed. Rank 0 writes the timed results to a JSON file for the launching process.
 */
public final class MpiSweepWorker {
    private MpiSweepWorker() { }

    /**
     * Arguments: X file, y file, result file, nodes, epochs, learning rate, intercept,
     * loss reduction, block size, warm-up runs, timed runs, and optionally the communication
     * deadline in seconds.
     */
    public static void main(String[] a) {
        MpiCommunicator comm = MpiCommunicator.world();
        try {
            if (a.length > 11) {
                comm.commTimeout(Double.parseDouble(a[11]));
            }
            Dataset data = PaperFormat.read(Path.of(a[0]), Path.of(a[1]));
            TrainConfig config = new TrainConfig(Integer.parseInt(a[3]), Integer.parseInt(a[4]),
                Double.parseDouble(a[5]), Boolean.parseBoolean(a[6]), LossReduction.valueOf(a[7]),
                Integer.parseInt(a[8]));
            int warmup = Integer.parseInt(a[9]);
            int repeats = Integer.parseInt(a[10]);
            for (int w = 0; w < warmup; w++) {
                Training.mpi(data, config, null);
            }
            ArrayNode runs = RunWriter.json().createArrayNode();
            for (int r = 0; r < repeats; r++) {
                TrainingResult result = Training.mpi(data, config, null);
                if (result != null) {
                    runs.add(ResultCodec.toJson(result));
                }
            }
            if (comm.rank() == 0) {
                AtomicFiles.writeBytes(Path.of(a[2]), out -> RunWriter.json().writeValue(out, runs));
            }
        } catch (RuntimeException e) {
            System.err.println("paratrain: rank " + comm.rank() + " failed: " + e.getMessage());
            System.err.flush();
            comm.abort(1);
        } finally {
            MpiCommunicator.finalizeIfInitialized();
        }
    }
}
