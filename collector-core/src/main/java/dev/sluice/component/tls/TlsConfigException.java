package dev.sluice.component.tls;

import java.io.IOException;

/**
 * A {@code tls} section that cannot be loaded: a file that is unreadable, not PEM, or holds a key
 * that does not match its certificate. The message names the key, the file and what is wrong, such
 * as {@code key_file /etc/sluice/key.pem: is not PEM: no -----BEGIN PRIVATE KEY----- block}.
 */
public final class TlsConfigException extends IOException {
  private static final long serialVersionUID = 1L;

  TlsConfigException(String message) {
    super(message);
  }

  TlsConfigException(String key, String file, String problem) {
    super(key + " " + file + ": " + problem);
  }
}
