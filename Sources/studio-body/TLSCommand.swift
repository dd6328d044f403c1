import BodySystem
import BodyAgent
import BodyConfig
import BodyTLS
import BodySystem

/// `studio-body tls`: the body's certificate and the pin Oriel needs; with
/// `--renew`, a new key and certificate (Oriel must then pin the new one).
enum TLSCommand {
    static func run(_ config: BodyConfig, renew: Bool) -> Int32 {
        let directory = config.stateDirectory(environment: Environment.values)
        do throws(TLSError) {
            if renew {
                guard let (identity, _) = try BodyIdentity.obtain(config, environment: Environment.values, renew: true) else { return 1 }
                say("tls: made a new key and certificate in \(directory) for \(identity.names.joined(separator: ", "))")
                say("  pin \(identity.pin): tell Oriel the new pin; a running body serves the old certificate until it restarts")
                return 0
            }
            guard let identity = try TLSIdentity.read(directory: directory) else {
                say("tls: none yet in \(directory): the body makes its key and certificate at its first start")
                return 0
            }
            say("tls: \(identity.certificateFile) for \(identity.names.joined(separator: ", "))")
            say("  pin \(identity.pin)")
            if !config.tls { say("  [body] tls = no: the body serves plain HTTP and does not use it") }
            return 0
        } catch {
            say(error.description)
            return 1
        }
    }

    /// What `check` says of TLS, in one line (two spaces in, as check's lines are).
    static func checked(_ config: BodyConfig) -> (line: String, ok: Bool) {
        guard config.tls else {
            return ("  tls: plain HTTP ([body] tls = no): only for a body reached over an encrypted network or loopback", true)
        }
        let directory = config.stateDirectory(environment: Environment.values)
        // As with the token: a person may check everything but the service's own key.
        if let denied = FileFacts.readError(TLSIdentity.keyFile(in: directory)), denied.kind == .permission {
            let owner = FileFacts.owner(of: directory) ?? "the service's user"
            return ("  tls: HTTPS; the key in \(directory) is the service's (readable by \(owner) only), not checked; to check it and see the pin: sudo -u \(owner) \(CommandLine.arguments[0]) check --config \(config.file)", true)
        }
        do throws(TLSError) {
            guard let identity = try TLSIdentity.read(directory: directory) else {
                return ("  tls: HTTPS; no key and certificate in \(directory) yet: the body makes them at its first start", true)
            }
            return ("  tls: HTTPS with \(identity.certificateFile) (\(identity.names.joined(separator: ", "))); Oriel pins \(identity.pin)", true)
        } catch {
            return ("  \(error.description)", false)
        }
    }
}

/// The process's environment, for `$STATE_DIRECTORY` (systemd's `StateDirectory=`).
enum Environment {
    static var values: [String: String] {
        var out: [String: String] = [:]
        for key in ["STATE_DIRECTORY"] {
            if let v = CurrentProcess.environment(key) { out[key] = v }
        }
        return out
    }
}
