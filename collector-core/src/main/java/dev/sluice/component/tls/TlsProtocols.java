package dev.sluice.component.tls;

import dev.sluice.component.ConfigProblems;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.net.ssl.SSLContext;

/**
 * The {@code min_version}, {@code max_version} and {@code cipher_suites} of a {@code tls} section,
 * as the OpenTelemetry Collector's {@code configtls} reads them, mapped to the JDK's names.
 *
 * <p>Versions are {@code "1.0"} to {@code "1.3"}; {@code min_version} defaults to 1.2 and an empty
 * {@code max_version} means the newest (1.3). The JDK disables 1.0 and 1.1 by default ({@code
 * jdk.tls.disabledAlgorithms}), so allowing them here does not enable them.
 *
 * <p>Cipher suites have the IANA names that Go and the JDK share ({@code
 * TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256}); the names Sluice accepts are the suites the JDK enables
 * by default, plus Go's short aliases of the two ChaCha20 suites. As in Go, TLS 1.3 suites are not
 * configurable: their names are accepted and every TLS 1.3 suite stays enabled, so {@code
 * cipher_suites} restricts TLS 1.2 (and older) handshakes only.
 */
public final class TlsProtocols {
  /** {@code min_version} when the configuration leaves it out. */
  public static final String DEFAULT_MIN_VERSION = "1.2";

  /** The JDK's protocol names by {@code configtls} version string, oldest first. */
  private static final Map<String, String> VERSIONS =
      Map.of("1.0", "TLSv1", "1.1", "TLSv1.1", "1.2", "TLSv1.2", "1.3", "TLSv1.3");

  private static final List<String> VERSION_ORDER = List.of("1.0", "1.1", "1.2", "1.3");

  /** The TLS 1.3 suites, which every handshake keeps (they are not configurable, as in Go). */
  static final List<String> TLS13_SUITES =
      List.of("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256");

  /** Go's constant names for two suites whose IANA names end in {@code _SHA256}. */
  private static final Map<String, String> GO_ALIASES =
      Map.of(
          "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
          "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305",
              "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256");

  /** Not a suite: the JDK lists it among the defaults as a renegotiation signal. */
  private static final String RENEGOTIATION_SCSV = "TLS_EMPTY_RENEGOTIATION_INFO_SCSV";

  private TlsProtocols() {}

  /**
   * Reports unsupported version strings, a {@code min_version} above {@code max_version}, unknown
   * cipher suites (listing the supported ones) and a negative {@code reload_interval}.
   */
  public static void validate(
      String minVersion,
      String maxVersion,
      List<String> cipherSuites,
      Duration reloadInterval,
      ConfigProblems problems) {
    boolean versionsKnown =
        validateVersion(minVersion, "min_version", problems)
            & validateVersion(maxVersion, "max_version", problems);
    if (versionsKnown && rank(minVersion, DEFAULT_MIN_VERSION) > rank(maxVersion, "1.3")) {
      problems.add(
          "min_version",
          "min_version \""
              + minVersion
              + "\" is above max_version \""
              + maxVersion
              + "\": no TLS version is left");
    }
    for (int i = 0; i < cipherSuites.size(); i++) {
      String suite = cipherSuites.get(i);
      if (jdkSuiteName(suite) == null) {
        problems.add(
            "cipher_suites[" + i + "]",
            "unknown cipher suite \"" + suite + "\"; supported: " + String.join(", ", supported()));
      }
    }
    if (reloadInterval != null && reloadInterval.isNegative()) {
      problems.add("reload_interval", "must not be negative, was " + reloadInterval);
    }
  }

  private static boolean validateVersion(String version, String key, ConfigProblems problems) {
    if (version.isEmpty() || VERSIONS.containsKey(version)) {
      return true;
    }
    problems.add(
        key,
        "unsupported TLS version \"" + version + "\"; use \"1.0\", \"1.1\", \"1.2\" or \"1.3\"");
    return false;
  }

  private static int rank(String version, String ifEmpty) {
    return VERSION_ORDER.indexOf(version.isEmpty() ? ifEmpty : version);
  }

  /**
   * The JDK protocol names from {@code minVersion} to {@code maxVersion} (validated), newest first.
   */
  static String[] protocols(String minVersion, String maxVersion) {
    int min = rank(minVersion, DEFAULT_MIN_VERSION);
    int max = rank(maxVersion, "1.3");
    List<String> protocols = new ArrayList<>();
    for (int i = max; i >= min; i--) {
      protocols.add(VERSIONS.get(VERSION_ORDER.get(i)));
    }
    return protocols.toArray(new String[0]);
  }

  /**
   * The JDK cipher suite names for a validated {@code cipher_suites}, in its order, followed by the
   * TLS 1.3 suites; null when it is empty (the TLS provider's defaults).
   */
  static List<String> cipherSuites(List<String> configured) {
    if (configured.isEmpty()) {
      return null;
    }
    Set<String> suites = new LinkedHashSet<>();
    for (String suite : configured) {
      suites.add(jdkSuiteName(suite));
    }
    suites.addAll(TLS13_SUITES);
    return List.copyOf(suites);
  }

  /** The JDK's name for a configured suite, or null when Sluice does not support it. */
  private static String jdkSuiteName(String configured) {
    String name = GO_ALIASES.getOrDefault(configured, configured);
    return supported().contains(name) ? name : null;
  }

  /** The cipher suites the JDK enables by default, which are the ones Sluice accepts. */
  static Set<String> supported() {
    return Supported.SUITES;
  }

  private static final class Supported {
    static final Set<String> SUITES = load();

    private static Set<String> load() {
      try {
        Set<String> suites = new LinkedHashSet<>();
        for (String suite : SSLContext.getDefault().getDefaultSSLParameters().getCipherSuites()) {
          if (!RENEGOTIATION_SCSV.equals(suite)) {
            suites.add(suite);
          }
        }
        // In the JDK's order of preference, which the error message lists.
        return Collections.unmodifiableSet(suites);
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("the JDK has no default TLS context", e);
      }
    }
  }
}
