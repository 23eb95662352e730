package io.runner.spring;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

import io.runner.helidon.Settings.InvalidSetting;

/**
 * DATABASE_URL as the contract gives it, in libpq URI form
 * ({@code postgresql://user:password@host:port/database?params}), converted to what the PostgreSQL JDBC
 * driver and HikariCP take: {@code jdbc:postgresql://host:port/database?params} plus the user and
 * password apart (percent-decoded, so a password may hold {@code @} or {@code :} as {@code %40}, {@code %3A}).
 * The JDBC driver does not read credentials from the authority part, hence the conversion.
 *
 * @param jdbcUrl  the JDBC URL, without credentials
 * @param user     the user, empty when the URL has none
 * @param password the password, empty when the URL has none
 */
public record DatabaseUrl(String jdbcUrl, String user, String password) {

    public static DatabaseUrl parse(String raw) throws InvalidSetting {
        URI uri;
        try {
            uri = new URI(raw);
        } catch (URISyntaxException e) {
            throw new InvalidSetting("DATABASE_URL is not a URI (" + e.getMessage()
                    + "); expected postgresql://user:password@host:port/database");
        }
        String scheme = uri.getScheme();
        if (!"postgresql".equals(scheme) && !"postgres".equals(scheme)) {
            throw new InvalidSetting("DATABASE_URL scheme is " + scheme
                    + ", expected postgresql://user:password@host:port/database");
        }
        if (uri.getHost() == null) {
            throw new InvalidSetting("DATABASE_URL has no host; expected postgresql://user:password@host:port/database");
        }
        String path = uri.getRawPath() == null ? "" : uri.getRawPath();
        if (path.length() <= 1) {
            throw new InvalidSetting("DATABASE_URL names no database; expected postgresql://user:password@host:port/database");
        }
        String host = uri.getHost();
        String port = uri.getPort() < 0 ? "" : ":" + uri.getPort();
        String query = uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery();
        String jdbc = "jdbc:postgresql://" + host + port + path + query;

        String user = "";
        String password = "";
        String userInfo = uri.getRawUserInfo();
        if (userInfo != null) {
            int colon = userInfo.indexOf(':');
            user = decode(colon < 0 ? userInfo : userInfo.substring(0, colon));
            password = colon < 0 ? "" : decode(userInfo.substring(colon + 1));
        }
        return new DatabaseUrl(jdbc, user, password);
    }

    private static String decode(String s) {
        // URLDecoder turns '+' into a space (form encoding); a URI's user info keeps '+' as is
        return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    /** For logs: never the password. */
    @Override
    public String toString() {
        return jdbcUrl + " as " + user;
    }
}
