package org.paratrain.comm.tcp;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * What a TCP job's connections prove they belong to: a secret shared by the job's ranks and
 * the name of one attempt of the job. Each connection's handshake is an HMAC-SHA256 over fresh
 * nonces from both ends, the attempt and both ranks, so a process that does not hold the secret,
 * or a rank of an earlier attempt (a retried Spark stage), cannot join.
 *
 * @param secret  at least 16 random bytes, the same on every rank (not logged, not in results)
 * @param attempt the attempt's name, the same on every rank of it and different on every other
 *                (e.g. a job id and a stage attempt number)
 */
public record JobKey(byte[] secret, String attempt) {
    /** The key's checks. */
    public JobKey {
        if (secret.length < 16) {
            throw new IllegalArgumentException("a job secret needs at least 16 bytes, got " + secret.length);
        }
        secret = secret.clone();
        if (attempt.isEmpty()) {
            throw new IllegalArgumentException("the attempt's name is empty");
        }
    }

    /**
     * {@return a fresh key of 32 random bytes for {@code attempt}}
     *
     * @param attempt the attempt's name
     */
    public static JobKey random(String attempt) {
        byte[] s = new byte[32];
        new SecureRandom().nextBytes(s);
        return new JobKey(s, attempt);
    }

    /**
     * {@return the key of the same secret for another attempt}
     *
     * @param other the other attempt's name
     */
    public JobKey forAttempt(String other) {
        return new JobKey(secret, other);
    }

    /** {@return the secret in hexadecimal, to pass to the ranks} */
    public String secretHex() {
        return HexFormat.of().formatHex(secret);
    }

    /**
     * {@return a key from {@link #secretHex()}'s output}
     *
     * @param hex     the secret in hexadecimal
     * @param attempt the attempt's name
     */
    public static JobKey fromHex(String hex, String attempt) {
        return new JobKey(HexFormat.of().parseHex(hex), attempt);
    }

    /** {@return a copy of the secret} */
    @Override
    public byte[] secret() {
        return secret.clone();
    }

    /** A record's string would print the secret. */
    @Override
    public String toString() {
        return "JobKey[attempt=" + attempt + "]";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof JobKey k && MessageDigest.isEqual(secret, k.secret) && attempt.equals(k.attempt);
    }

    @Override
    public int hashCode() {
        return attempt.hashCode();
    }

    /** {@return HMAC-SHA256 under the secret of a role byte, the nonces, the attempt and the ranks} */
    byte[] mac(byte role, byte[] acceptorNonce, byte[] connectorNonce, int from, int to) {
        try {
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(new SecretKeySpec(secret, "HmacSHA256"));
            m.update(role);
            m.update(acceptorNonce);
            m.update(connectorNonce);
            m.update(attempt.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            m.update(java.nio.ByteBuffer.allocate(8).putInt(from).putInt(to).array());
            return m.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
        }
    }
}
