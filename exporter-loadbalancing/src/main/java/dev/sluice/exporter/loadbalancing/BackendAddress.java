package dev.sluice.exporter.loadbalancing;

/**
 * Backend names as the resolvers give them: {@code host}, {@code host:port}, {@code [v6]} or {@code
 * [v6]:port}. The ring places a backend by its name as resolved; its exporter dials the name with
 * the default port added when it has none, as the Go collector does.
 */
final class BackendAddress {
  static final String DEFAULT_PORT = "4317";
  private static final int MAX_PORT = 65_535;

  private BackendAddress() {}

  /** {@code name} with {@code :4317} added when it names no port. */
  static String withPort(String name) {
    return portStart(name) < 0 ? name + ":" + DEFAULT_PORT : name;
  }

  static boolean isValid(String name) {
    int colon = portStart(name);
    if (colon == 0) {
      return false;
    }
    if (name.startsWith("[") && name.indexOf(']') < 0) {
      return false;
    }
    return colon < 0 || isPort(name.substring(colon + 1));
  }

  static boolean isPort(String text) {
    if (text.isEmpty() || text.length() > 5) {
      return false;
    }
    for (int i = 0; i < text.length(); i++) {
      if (!Character.isDigit(text.charAt(i))) {
        return false;
      }
    }
    int port = Integer.parseInt(text);
    return port >= 1 && port <= MAX_PORT;
  }

  /** Where the {@code :port} starts, or -1 without one (a bare IPv6 address has none). */
  private static int portStart(String name) {
    if (name.startsWith("[")) {
      int close = name.indexOf(']');
      return close >= 0 && close + 1 < name.length() && name.charAt(close + 1) == ':'
          ? close + 1
          : -1;
    }
    int colon = name.lastIndexOf(':');
    return colon >= 0 && name.indexOf(':') == colon ? colon : -1;
  }
}
