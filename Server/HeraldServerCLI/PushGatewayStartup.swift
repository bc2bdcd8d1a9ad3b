import Foundation
import HeraldPush
import HeraldServer
import Logging

/// The push gateway for the providers whose credentials the options name, or nil when none are: credentials are read
/// from their files here, at start, so a key that cannot work stops the server with the reason instead of failing at
/// the first locked phone.
func makePushGateway(options: HeraldServerOptions, location: StoreLocation, logger: Logger) throws -> PushGateway? {
    let push = options.push
    guard !push.providers.isEmpty else { return nil }
    var clients: [any PushProviderClient] = []
    do {
        if let file = push.apnsKeyFile, let keyID = push.apnsKeyID, let teamID = push.apnsTeamID {
            clients.append(try APNsClient(keyPEM: try readText(file, flag: "apns-key-file"), keyID: keyID, teamID: teamID, baseURL: push.apnsURL))
        }
        if let file = push.fcmServiceAccountFile {
            clients.append(try FCMClient(serviceAccountJSON: Array(try readText(file, flag: "fcm-service-account-file").utf8), baseURL: push.fcmURL))
        }
        if let file = push.vapidKeyFile, let subject = push.vapidSubject {
            clients.append(try WebPushClient(vapidKeyPEM: try readText(file, flag: "vapid-key-file"), subject: subject))
        }
        if let url = push.webhookURL, let file = push.webhookSecretFile {
            let secret: String
            do { secret = try SecretFile.read(file) } catch { throw PushConfigurationError("--webhook-secret-file \(file): \(error)") }
            clients.append(try WebhookClient(url: url, secret: Array(secret.utf8)))
        }
    }
    var settings = PushGatewaySettings()
    settings.concurrency = push.concurrency
    settings.hostConcurrency = push.hostConcurrency
    settings.stallTimeoutMilliseconds = push.stallTimeoutMs
    settings.connectTimeoutMilliseconds = push.stallTimeoutMs
    // The registration rule and the connect-time check are one allowance: a loopback endpoint a user may register is
    // one the workers may connect to, and no other non-public address.
    settings.allowsLoopbackEndpoints = push.allowsLoopbackHTTP
    settings.resolve = push.testResolve
    settings.caFile = push.caFile
    settings.retry.maxBackoffMilliseconds = Int64(push.maxBackoffMs)
    settings.retry.maxRetryAfterSeconds = Int64(push.maxRetryAfterSeconds)
    return PushGateway(clients: clients, settings: settings, makeStore: { try location.openPushQueue() }, logger: logger)
}

/// A credentials file's text; its path and the reason when it cannot be read (never its content).
private func readText(_ path: String, flag: String) throws -> String {
    guard let data = FileManager.default.contents(atPath: path) else { throw PushConfigurationError("--\(flag) \(path): cannot read the file") }
    return String(decoding: data, as: UTF8.self)
}
