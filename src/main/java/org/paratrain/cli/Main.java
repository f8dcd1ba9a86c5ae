package org.paratrain.cli;

import java.io.PrintWriter;
import java.io.UncheckedIOException;
import org.paratrain.comm.RankFailedException;
import org.paratrain.comm.mpi.JobFailedException;
import org.paratrain.comm.mpi.MpiCommunicator;
import org.paratrain.comm.mpi.MpiException;
import org.paratrain.comm.mpi.MpiJob;
import org.paratrain.data.DataFormatException;
import org.paratrain.experiment.Provenance;
import org.paratrain.train.DivergenceException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * paratrain's command line: a thin layer over the Java API. Every error a user can cause
 * ends as one line on standard error and a non-zero exit status: 2 for a bad command line
 * or option value, 1 for bad input data or a failed run.
 */
@Command(name = "paratrain", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
    description = "Data-parallel training of machine-learning models on the JVM.",
    subcommands = {PaperCommand.class, ScaleCommand.class, PlanCommand.class, GenerateCommand.class, TrainCommand.class,
        Evaluate.EvaluateCommand.class, Evaluate.PredictCommand.class,
        BenchCommand.class,
        CommandLine.HelpCommand.class})
public final class Main implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is required, e.g. paratrain train");
    }

    /** Runs the command line and exits with its status. */
    public static void main(String[] args) {
        System.exit(execute(args));
    }

    /** Runs the command line and returns the exit status (for tests and embedding). */
    public static int execute(String... args) {
        return execute(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args);
    }

    /** Runs the command line with the given output and error streams; returns the exit status. */
    public static int execute(PrintWriter out, PrintWriter err, String... args) {
        CommandLine cli = new CommandLine(new Main());
        cli.setOut(out);
        cli.setErr(err);
        cli.setExecutionExceptionHandler(Main::handle);
        cli.setParameterExceptionHandler(Main::handleParameter);
        try {
            return cli.execute(args);
        } finally {
            // Every rank of an MPI job must finalize, whether its command succeeded or not.
            MpiCommunicator.finalizeIfInitialized();
        }
    }

    private static int handleParameter(CommandLine.ParameterException e, String[] args) {
        PrintWriter err = e.getCommandLine().getErr();
        if (MpiJob.insideMpirun() && MpiJob.rankFromEnvironment() != 0) {
            return 2;   // every rank sees the same mistake; rank 0 says it
        }
        String message = e.getMessage().startsWith("Error: ") ? e.getMessage().substring(7) : e.getMessage();
        err.println(e.getCommandLine().getCommandSpec().qualifiedName() + ": error: " + message);
        err.println("Try '" + e.getCommandLine().getCommandSpec().qualifiedName() + " --help' for more information.");
        return 2;
    }

    private static int handle(Exception e, CommandLine cli, CommandLine.ParseResult parsed) {
        PrintWriter err = cli.getErr();
        if (e instanceof JobFailedException jf) {
            return jf.status();   // the ranks or the launching process have printed why
        }
        if (MpiJob.insideMpirun() && MpiJob.rankFromEnvironment() != 0) {
            err = new PrintWriter(java.io.Writer.nullWriter());   // every rank fails alike; rank 0 says it
        }
        Throwable t = e instanceof RankFailedException rf && rf.getCause() instanceof DivergenceException d ? d : e;
        if (t instanceof IllegalArgumentException) {
            err.println(cli.getCommandSpec().qualifiedName() + ": error: " + t.getMessage());
            return 2;
        }
        if (t instanceof DataFormatException || t instanceof DivergenceException
            || t instanceof RankFailedException || t instanceof UncheckedIOException || t instanceof MpiException) {
            err.println(cli.getCommandSpec().qualifiedName() + ": error: " + t.getMessage());
            return 1;
        }
        err.println(cli.getCommandSpec().qualifiedName() + ": internal error: " + t);
        t.printStackTrace(err);
        return 3;
    }

    /** Version from the jar's manifest and the source tree's commit. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"paratrain " + Provenance.codeVersion(), "Java " + Runtime.version()};
        }
    }
}
