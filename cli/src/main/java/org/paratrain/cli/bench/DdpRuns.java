package org.paratrain.cli.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code bench network}'s PyTorch side: DDP jobs over gloo across the emulated hosts, each host's
 * process started through the hosts' agent ({@code python/ddp_bench.py}, one thread a rank),
 * each run's figure read from the first host's log; {@code bench network} spreads the runs
 * between paratrain's and keeps the best.
 *
 * @param python    the Python with torch
 * @param precision float32 or float64
 * @param batch     the global batch
 * @param steps     timed steps a run
 * @param fashion   Fashion-MNIST's directory (random images where it is missing)
 * @param err       where a failed run is reported
 */
record DdpRuns(String python, String precision, int batch, int steps, Path fashion, PrintWriter err) {

    /**
     * One DDP run of 2 x {@code k} ranks: its samples per second, or NaN where it failed (told on
     * {@code err}). {@code round} picks the run's port.
     */
    double once(Path ddp, String model, int k, int round) throws IOException {
        int port = 29_500 + (int) ((ProcessHandle.current().pid() * 7 + round) % 500);
        List<Process> hosts = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        try {
            for (int h = 0; h < 2; h++) {
                Path log = Files.createTempFile(ddp.getParent(), "ddp-" + h, ".log");
                logs.add(log);
                hosts.add(start(ddp, model, k, h, port, log));
            }
            for (Process p : hosts) {
                if (!p.waitFor(10, TimeUnit.MINUTES)) {
                    p.descendants().forEach(ProcessHandle::destroyForcibly);
                    p.destroyForcibly();
                    p.waitFor();
                }
            }
            String text = Files.readString(logs.get(0));
            java.util.Optional<String> rate = text.lines().filter(l -> l.startsWith("samples_per_s ")).findFirst();
            if (rate.isEmpty() || hosts.stream().anyMatch(p -> p.exitValue() != 0)) {
                err.println("  the PyTorch run failed ("
                    + (text + Files.readString(logs.get(1))).lines().filter(l -> !l.isBlank())
                    .reduce((a, b) -> b).orElse("no output") + "); its row shows -");
                return Double.NaN;
            }
            return Double.parseDouble(rate.get().substring(14).strip());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new org.paratrain.comm.BackendException("bench network: interrupted");
        } finally {
            hosts.forEach(p -> {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            });
        }
    }

    /** Host {@code h}'s process of a DDP job of 2 x {@code k} ranks, its rank 0 on the first host. */
    private Process start(Path ddp, String model, int k, int h, int port, Path log) throws IOException {
        String vars = "OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 GLOO_SOCKET_IFNAME=eth0 DDP_BENCH_INIT=tcp://"
            + NetworkHosts.SUBNET + ".1:" + port + " DDP_BENCH_WORLD=" + 2 * k + " DDP_BENCH_FIRST=" + h * k;
        String files = Files.isDirectory(fashion) ? " " + fashion.resolve("train-images-idx3-ubyte.gz") + " "
            + fashion.resolve("train-labels-idx1-ubyte.gz") : "";
        String line = "env " + vars + " " + python + " " + ddp + " " + model + " " + precision + " " + k + " " + batch
            + " " + steps + files;
        return new ProcessBuilder(NetworkHosts.DIR.resolve("rsh-agent").toString(), NetworkHosts.SUBNET + "." + (h + 1), line)
            .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }
}
