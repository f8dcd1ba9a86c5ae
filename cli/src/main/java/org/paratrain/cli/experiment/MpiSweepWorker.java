package org.paratrain.cli.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import org.paratrain.comm.Communicator;
import org.paratrain.train.Backend;
import org.paratrain.data.Dataset;
import org.paratrain.data.PaperFormat;
import org.paratrain.io.AtomicFiles;
import org.paratrain.train.Training;
import org.paratrain.train.TrainingResult;
import org.paratrain.experiment.ResultCodec;
import org.paratrain.experiment.RunWriter;
import org.paratrain.experiment.SpecCodec;

/**
 * The program every MPI rank runs for one node count of a sweep: warm-up runs, then timed
 * runs, all in one MPI job so that JVM start-up and JIT compilation are paid once and not
 * timed. Rank 0 writes the timed results to a JSON file for the launching process.
 *
 * <p>What to run arrives as one JSON file (see {@link #job}): the settings through
 * {@link SpecCodec}, as result.json records them, so the ranks train exactly what the
 * launching process was asked for (the exchange too), not what a list of positional
 * arguments happened to carry.
 */
public final class MpiSweepWorker {
    private MpiSweepWorker() { }

    /**
     * The job file's content: data files, where rank 0 writes the timed runs, the settings,
     * the number of warm-up and timed runs, and the communication deadline.
     *
     * @param x        the features file (the paper's format)
     * @param y        the targets file
     * @param result   where rank 0 writes the timed runs
     * @param settings from {@link SpecCodec#encode}
     * @param warmup   untimed runs first
     * @param repeats  timed runs
     * @param timeout  seconds a rank may wait for another
     * @return the JSON to write to the job file
     */
    static ObjectNode job(Path x, Path y, Path result, ObjectNode settings, int warmup, int repeats, double timeout) {
        ObjectNode o = RunWriter.json().createObjectNode();
        o.put("x", x.toString());
        o.put("y", y.toString());
        o.put("result", result.toString());
        o.set("settings", settings);
        o.put("warmup", warmup);
        o.put("repeats", repeats);
        o.put("comm_timeout_seconds", timeout);
        return o;
    }

    /**
     * Runs one node count's warm-up and timed runs on this rank.
     *
     * @param a one argument: the job file written from {@link #job}
     */
    public static void main(String[] a) {
        Communicator comm = Backend.mpiWorld();
        try {
            JsonNode job = RunWriter.json().readTree(Path.of(a[0]).toFile());
            Backend.mpiCommTimeout(job.path("comm_timeout_seconds").asDouble());
            Backend.mpiRanksPerProcess(job.path("ranks_per_process").asInt(1));
            org.paratrain.train.spec.TrainSpec s = SpecCodec.decode(job.path("settings"));
            Dataset data = PaperFormat.read(Path.of(job.path("x").asText()), Path.of(job.path("y").asText()));
            for (int w = 0; w < job.path("warmup").asInt(); w++) {
                Training.mpi(data, s, org.paratrain.train.TrainingControl.none());
            }
            ArrayNode runs = RunWriter.json().createArrayNode();
            for (int r = 0; r < job.path("repeats").asInt(); r++) {
                TrainingResult result = Training.mpi(data, s, org.paratrain.train.TrainingControl.none());
                if (result != null) {
                    runs.add(ResultCodec.toJson(result));
                }
            }
            if (comm.rank() == 0) {
                AtomicFiles.writeBytes(Path.of(job.path("result").asText()),
                    out -> RunWriter.json().writeValue(out, runs));
            }
        } catch (IOException e) {
            Backend.abortMpiJob(new UncheckedIOException("cannot read the job file " + a[0] + ": " + e.getMessage(), e));
        } catch (RuntimeException e) {
            Backend.abortMpiJob(e);
        } finally {
            Backend.finalizeMpi();
        }
    }
}
