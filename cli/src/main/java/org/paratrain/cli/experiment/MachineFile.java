package org.paratrain.cli.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import org.paratrain.collective.Allreduce;
import org.paratrain.data.DataFormatException;
import org.paratrain.io.AtomicFiles;
import org.paratrain.experiment.JsonFiles;
import org.paratrain.experiment.Provenance;
import org.paratrain.experiment.RunWriter;

/** machine.json: the fitted Hockney parameters and compute rate that {@code plan} reads. */
public final class MachineFile {
    private MachineFile() { }

    /**
     * What a machine file holds.
     *
     * @param machine               the fitted alpha, beta and gamma
     * @param secondsPerSampleParam the measured gradient cost per sample and parameter
     * @param cores                 cores of the machine measured
     */
    public record Contents(Allreduce.Machine machine, double secondsPerSampleParam, int cores) { }

    /**
     * Writes the file atomically, with provenance.
     *
     * @param file    where, usually {@code results/collectives/machine.json}
     * @param m       the fitted alpha, beta and gamma
     * @param rate    the measured gradient cost per sample and parameter, in seconds
     * @param cores   cores of the machine measured
     * @param backend the backend measured ({@code local})
     */
    public static void write(Path file, Allreduce.Machine m, double rate, int cores, String backend) {
        write(file, m, rate, cores, backend, java.util.List.of("bench", "collectives"));
    }

    /**
     * As {@link #write(Path, Allreduce.Machine, double, int, String)}, made by another command.
     *
     * @param file    where
     * @param m       the fitted alpha, beta and gamma
     * @param rate    the measured gradient cost per sample and parameter, in seconds
     * @param cores   cores of the machine measured
     * @param backend the backend measured
     * @param command the command that measured it, as provenance records it
     */
    public static void write(Path file, Allreduce.Machine m, double rate, int cores, String backend,
                             java.util.List<String> command) {
        ObjectNode o = RunWriter.json().createObjectNode();
        o.put("alpha_seconds", m.alpha());
        o.put("beta_seconds_per_byte", m.beta());
        o.put("gamma_seconds_per_byte", m.gamma());
        o.put("seconds_per_sample_parameter", rate);
        o.put("cores", cores);
        o.put("backend", backend);
        o.set("provenance", Provenance.capture(command).toJson());
        AtomicFiles.writeBytes(file, out -> RunWriter.json().writeValue(out, o));
    }

    /**
     * {@return what a file written by {@link #write} holds}
     * @param file a machine.json
     * @throws DataFormatException naming the file and the field, if it is not one or a number is missing
     */
    public static Contents read(Path file) {
        JsonNode o = JsonFiles.read(file, "a machine file (machine.json from bench collectives)");
        return new Contents(new Allreduce.Machine(need(o, file, "alpha_seconds"), need(o, file,
            "beta_seconds_per_byte"), need(o, file, "gamma_seconds_per_byte")),
            need(o, file, "seconds_per_sample_parameter"), (int) need(o, file, "cores"));
    }

    private static double need(JsonNode o, Path file, String field) {
        JsonNode v = o.get(field);
        if (v == null || !v.isNumber() || !Double.isFinite(v.asDouble()) || v.asDouble() < 0) {
            throw new DataFormatException(file + ": field " + field + " is missing or not a non-negative number");
        }
        return v.asDouble();
    }
}
