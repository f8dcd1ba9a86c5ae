package org.paratrain.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** Prints where each result of a report went, grouped by what it is. */
final class Outputs {
    private static final Map<String, String> WHAT = Map.of(
        "table1", "table: time, weight and loss (mean, variance), speedup, efficiency, compute vs communication",
        "figure1_data", "figure 1: the data set",
        "figure2_fits", "figure 2: fits of different quality",
        "figure3_fit", "figure 3: the trained line over the data",
        "scaling", "plot: run time against node count",
        "breakdown", "plot: compute and communication per epoch",
        "loss", "plot: loss curve",
        "analysis", "analysis: where the time goes, when parallelism pays",
        "run", "provenance: configuration, seeds, code version, JVM, OS, cores, start time");

    private Outputs() { }

    static void print(PrintWriter out, Path dir, List<String> files) {
        out.println("wrote " + files.size() + " files to " + dir + ":");
        Map<String, List<String>> byStem = new java.util.LinkedHashMap<>();
        for (String f : files) {
            byStem.computeIfAbsent(f.substring(0, f.lastIndexOf('.')), k -> new java.util.ArrayList<>()).add(f);
        }
        byStem.forEach((stem, names) -> out.printf("  %-40s %s%n", String.join(", ", names),
            WHAT.getOrDefault(stem, "")));
    }
}
