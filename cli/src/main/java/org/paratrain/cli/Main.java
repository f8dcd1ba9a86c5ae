package org.paratrain.cli;

import org.paratrain.cli.bench.BenchCommand;

import java.io.PrintWriter;
import java.io.UncheckedIOException;
import org.paratrain.comm.JobFailedException;
import org.paratrain.comm.RankFailedException;
import org.paratrain.experiment.Provenance;
import org.paratrain.train.Backend;
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
        Evaluate.EvaluateCommand.class, Evaluate.PredictCommand.class, ExportCommand.class,
        BenchCommand.class, StartupTraining.class,
        CommandLine.HelpCommand.class})
public final class Main implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Only {@link #execute} makes one: the command line is used through its static methods. */
    Main() { }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is required, e.g. paratrain train");
    }

    /**
     * Runs the command line and exits the JVM with its status.
     *
     * @param args the command and its options, e.g. {@code train --x X.in --y y.in}
     */
    public static void main(String[] args) {
        if (Backend.insideMpiJob()) {
            Backend.watchMpiLauncher();     // first: a rank whose launcher died must not go on to read data and train
        }
        System.exit(execute(args));
    }

    /**
     * Runs the command line on standard output and error, without exiting (for tests and embedding).
     *
     * @param args the command and its options
     * @return the exit status: 0 on success, 2 for a bad command line, 1 for bad data or a failed run
     */
    public static int execute(String... args) {
        return execute(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args);
    }

    /**
     * Runs the command line with the given output and error streams, without exiting.
     *
     * @param out  where results and help go
     * @param err  where the one-line error goes
     * @param args the command and its options
     * @return the exit status: 0 on success, 2 for a bad command line, 1 for bad data or a failed run
     */
    public static int execute(PrintWriter out, PrintWriter err, String... args) {
        CommandLine cli = new CommandLine(new Main());
        HelpText.flow(cli);
        cli.setOut(out);
        cli.setErr(err);
        cli.setExecutionExceptionHandler(Main::handle);
        cli.setParameterExceptionHandler(Main::handleParameter);
        try {
            return cli.execute(args);
        } catch (Error e) {
            // Picocli passes only exceptions to the handler; errors the user can cause (running out of
            // memory, an MPI library that will not load) still end as one line.
            if (!Failures.known(e)) {
                throw e;
            }
            return report(err, commandName(cli, args), Failures.describe(e), e);
        } finally {
            // Every rank of an MPI job must finalize, whether its command succeeded or not.
            Backend.finalizeMpi();
        }
    }

    private static int handleParameter(CommandLine.ParameterException e, String[] args) {
        PrintWriter err = e.getCommandLine().getErr();
        if (Backend.insideMpiJob() && Backend.mpiRankFromEnvironment() != 0) {
            return 2;   // every rank sees the same mistake; rank 0 says it
        }
        String name = e.getCommandLine().getCommandSpec().qualifiedName();
        String message = e.getMessage().startsWith("Error: ") ? e.getMessage().substring(7) : e.getMessage();
        String hint = "";
        if (e instanceof CommandLine.UnmatchedArgumentException u) {
            hint = u.getSuggestions().isEmpty() ? "; see " + name + " --help"
                : "; did you mean " + String.join(" or ", u.getSuggestions().subList(0,
                    Math.min(3, u.getSuggestions().size()))) + "?";
        } else if (e instanceof CommandLine.MissingParameterException) {
            hint = "; see " + name + " --help";
        }
        err.println(name + ": error: " + Failures.line(message + hint));
        return 2;
    }

    private static int handle(Exception e, CommandLine cli, CommandLine.ParseResult parsed) {
        if (e instanceof JobFailedException jf) {
            return jf.status();   // the ranks or the launching process have printed why
        }
        return report(cli.getErr(), cli.getCommandSpec().qualifiedName(), Failures.describe(e), e);
    }

    /** Prints the outcome as one line (a stack trace too for a bug); returns the exit status. */
    private static int report(PrintWriter err, String command, Failures.Outcome outcome, Throwable e) {
        if (Backend.insideMpiJob() && Backend.mpiRankFromEnvironment() != 0) {
            return outcome.status();   // every rank fails alike; rank 0 says it
        }
        if (outcome.message() == null) {
            err.println(command + ": internal error: " + e);
            e.printStackTrace(err);
        } else {
            err.println(command + ": error: " + Failures.line(outcome.message()));
        }
        err.flush();
        return outcome.status();
    }

    /** The command's name for a message, from the parse if it got that far, else from the words given. */
    private static String commandName(CommandLine cli, String[] args) {
        CommandLine.ParseResult parsed = cli.getParseResult();
        if (parsed == null) {
            return "paratrain" + (args.length > 0 && !args[0].startsWith("-") ? " " + args[0] : "");
        }
        while (parsed.hasSubcommand()) {
            parsed = parsed.subcommand();
        }
        return parsed.commandSpec().qualifiedName();
    }

    /** Version from the jar's manifest and the source tree's commit. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"paratrain " + Provenance.codeVersion(), "Java " + Runtime.version()};
        }
    }
}
