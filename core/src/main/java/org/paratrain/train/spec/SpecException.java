package org.paratrain.train.spec;

/**
 * A setting of a spec that is out of its range. The message speaks of the setting in domain
 * terms ({@code momentum must be in [0, 1), got 1.5}); the command line, which knows which
 * option gave the setting, names the option instead.
 */
public final class SpecException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** The setting's name, as in {@link #getMessage()}. */
    private final String setting;

    /** What the setting must be, and what it was. */
    private final String requirement;

    /**
     * A bad setting.
     *
     * @param setting     its name in domain terms, e.g. {@code momentum}
     * @param requirement what it must be and what it was, e.g. {@code must be in [0, 1), got 1.5}
     */
    public SpecException(String setting, String requirement) {
        super(setting + " " + requirement);
        this.setting = setting;
        this.requirement = requirement;
    }

    /** {@return the setting's name in domain terms} */
    public String setting() {
        return setting;
    }

    /** {@return what the setting must be, and what it was} */
    public String requirement() {
        return requirement;
    }

    static void check(boolean ok, String setting, String requirement) {
        if (!ok) {
            throw new SpecException(setting, requirement);
        }
    }
}
