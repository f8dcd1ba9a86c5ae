package org.paratrain.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import org.paratrain.collective.Allreduce;
import org.paratrain.data.DataFormatException;
import org.paratrain.io.AtomicFiles;

/** machine.json: the fitted Hockney parameters and compute rate that {@code plan} reads. */
public final class MachineFile {
    private MachineFile() { }

    /** What a machine file holds. */
    public record Contents(Allreduce.Machine machine, double secondsPerSampleParam, int cores) { }

    /** Writes the file atomically, with provenance. */
    public static void write(Path file, Allreduce.Machine m, double rate, int cores, String backend) {
        ObjectNode o = RunWriter.json().createObjectNode();
        o.put("alpha_seconds", m.alpha());
        o.put("beta_seconds_per_byte", m.beta());
        o.put("gamma_seconds_per_byte", m.gamma());
        o.put("seconds_per_sample_parameter", rate);
        o.put("cores", cores);
        o.put("backend", backend);
        o.set("provenance", Provenance.capture(java.util.List.of("bench", "collectives")).toJson());
        AtomicFiles.writeBytes(file, out -> RunWriter.json().writeValue(out, o));
    }

    /** Reads a file written by {@link #write}. */
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
