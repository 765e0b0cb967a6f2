package dev.sluice.component;

/**
 * A component configuration's reference to an authenticator extension, for the loader to check.
 *
 * @param path the key path of the reference below the component's section, such as {@code
 *     protocols.http.auth.authenticator}
 * @param authenticator the extension's id as written
 * @param side the side the extension must serve
 */
public record AuthReference(String path, String authenticator, AuthSide side) {}
