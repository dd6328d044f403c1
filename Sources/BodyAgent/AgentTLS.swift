public import BodyConfig
import BodyCore
import BodyAnnounce
public import BodyTLS

/// The body's own key and certificate, had before the agent starts:
/// read from the state directory, or made there on the first start.
public enum BodyIdentity {
    /// The identity the body serves with; nil with `[body] tls = no`. `made`
    /// says the key and certificate were made just now (or renewed).
    public static func obtain(_ config: BodyConfig, environment: [String: String],
                              renew: Bool = false) throws(TLSError) -> (identity: TLSIdentity, made: Bool)? {
        guard config.tls || renew else { return nil }
        let directory = config.stateDirectory(environment: environment)
        if !renew, let found = try TLSIdentity.read(directory: directory) { return (found, false) }
        // Making one: Avahi's host name too, which Oriel finds the body by when it is
        // announced (asked once, as `check` asks it; no avahi-daemon, no such name).
        let avahi = config.announce ? try? AvahiAnnouncer.hostName().get() : nil
        let names = CertificateNames.choose(hostName: Agent.hostName(), avahiHost: avahi, configuredURL: config.advertisedURL,
                                            addresses: TLSIdentity.localAddresses())
        return try TLSIdentity.obtain(directory: directory, commonName: Agent.hostName() ?? config.name, names: names, renew: true)
    }

    /// The line the body says at start about what it serves and why.
    public static func words(_ config: BodyConfig, _ obtained: (identity: TLSIdentity, made: Bool)?) -> String {
        guard let (identity, made) = obtained else {
            return "tls: serving plain HTTP because [body] tls = no (for a body reached only over an encrypted network or loopback)"
        }
        let names = identity.names.joined(separator: ", ")
        return made
            ? "tls: serving HTTPS with a key and self-signed certificate made now in \(identity.certificateFile) for \(names); Oriel pins \(identity.pin)"
            : "tls: serving HTTPS with the body's certificate \(identity.certificateFile) (\(names)); Oriel pins \(identity.pin)"
    }
}
