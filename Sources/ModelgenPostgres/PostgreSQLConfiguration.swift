#if PostgreSQL
import Foundation
import ModelgenRuntime
import PostgresNIO

/// Where a `PostgreSQLStore` keeps its records and how it talks to the server.
public struct PostgreSQLConfiguration: Sendable {
    /// Host and port (or Unix socket), user, password, database and TLS, passed to PostgresNIO as they are.
    public var connection: PostgresConnection.Configuration
    /// The PostgreSQL schema (namespace) that holds the store's tables; created when missing. Several
    /// models (or test runs) can share a database in different schemas.
    public var schema: String
    /// The most connections the store opens at once; more concurrent calls wait for a free one.
    public var maximumConnections: Int
    /// How long a statement waits for a row or table lock another connection holds before failing
    /// with `PostgreSQLStoreError.lockTimeout` (PostgreSQL's `lock_timeout`).
    public var lockTimeout: Duration
    /// Whether opening the store with a model that removed stored entities, attributes or relationships
    /// drops them with their data (`.dropRemoved`) or refuses (`.additive`, the default).
    public var migration: MigrationPolicy

    /// A configuration over PostgresNIO's connection configuration.
    public init(connection: PostgresConnection.Configuration, schema: String = "public",
                maximumConnections: Int = 4, lockTimeout: Duration = .seconds(5), migration: MigrationPolicy = .additive) {
        self.connection = connection
        self.schema = schema
        self.maximumConnections = max(1, maximumConnections)
        self.lockTimeout = lockTimeout
        self.migration = migration
    }

    /// A configuration from a URL: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?schema=NAME&sslmode=…&sslrootcert=PATH]`.
    ///
    /// TLS as libpq's `sslmode` says: `disable` (the default here: no TLS), `require` (TLS; the
    /// certificate is verified only against `sslrootcert` when one is given), `verify-ca` (the chain
    /// must lead to `sslrootcert`, else to the system's trust roots), `verify-full` (that, and the
    /// certificate must name the host). Any other mode (`prefer`, `allow`) is refused: a connection
    /// is never quietly left unencrypted.
    public init(url: String) throws {
        guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme ?? ""),
              let host = components.host, let user = components.user else {
            throw PostgreSQLStoreError.configuration("expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE, found '\(url)'")
        }
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        let tls: PostgresConnection.Configuration.TLS
        var client = TLSConfiguration.makeClientConfiguration()
        if let root = query["sslrootcert"] {
            guard FileManager.default.isReadableFile(atPath: root) else {
                throw PostgreSQLStoreError.configuration("sslrootcert '\(root)' is not a readable file")
            }
            client.trustRoots = .file(root)
        }
        switch query["sslmode"] ?? "disable" {
        case "disable":
            tls = .disable
        case "require":
            client.certificateVerification = query["sslrootcert"] == nil ? .none : .noHostnameVerification
            tls = .require(try NIOSSLContext(configuration: client))
        case "verify-ca":
            client.certificateVerification = .noHostnameVerification
            tls = .require(try NIOSSLContext(configuration: client))
        case "verify-full":
            client.certificateVerification = .fullVerification
            tls = .require(try NIOSSLContext(configuration: client))
        case let other:
            throw PostgreSQLStoreError.configuration("sslmode '\(other)' is not supported (disable, require, verify-ca or verify-full)")
        }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        self.init(connection: .init(host: host, port: components.port ?? 5432, username: user, password: components.password,
                                    database: database.isEmpty ? nil : database, tls: tls),
                  schema: query["schema"] ?? "public")
    }
}

/// An error of the PostgreSQL store.
public enum PostgreSQLStoreError: Error, Sendable, CustomStringConvertible {
    /// The configuration cannot be used.
    case configuration(String)
    /// The server could not be reached or the connection failed.
    case connection(String)
    /// The server refused a statement: its SQLSTATE, its message and the statement.
    case server(sqlState: String, message: String, statement: String)
    /// A statement waited longer than the lock timeout for another connection's lock; nothing was changed.
    case lockTimeout(statement: String)
    /// The database holds this model's records in a layout the model cannot be migrated to automatically;
    /// nothing was changed.
    case incompatibleModel(schema: String, problems: [String])
    /// A value the store cannot keep as it is (PostgreSQL's text holds no U+0000); the save wrote nothing.
    case unstorableValue(entity: String, key: String, reason: String)

    public var description: String {
        switch self {
        case .configuration(let message): return "PostgreSQL store configuration: \(message)"
        case .connection(let message): return "PostgreSQL connection failed: \(message)"
        case .server(let state, let message, let statement): return "PostgreSQL error \(state): \(message) (in: \(statement))"
        case .lockTimeout(let statement): return "PostgreSQL: a lock stayed held by another connection beyond the lock timeout; nothing was changed (in: \(statement))"
        case .incompatibleModel(let schema, let problems):
            return "PostgreSQL schema \(schema): the database was written with a model this one cannot migrate to automatically; nothing was changed:\n"
                + problems.map { "  - \($0)" }.joined(separator: "\n")
        case .unstorableValue(let entity, let key, let reason): return "\(entity).\(key): \(reason); the save wrote nothing"
        }
    }
}
#endif
