import Foundation
import GRDB

/// A failure of the outbox, in words for the person at the terminal (one line, the file named).
public struct OutboxError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// The state folder or the database file cannot be created, opened or written (a full or
        /// read-only disk, a missing folder): worth trying again when that changes.
        case unwritable
        /// The file is not an outbox walkscape can read (damaged, or from a newer walkscape).
        case damaged
        /// A journal to import cannot be read.
        case unreadable
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    /// SQLite's failure in a person's words: what the disk said (full, read-only, too large), not
    /// a result code.
    static func describe(_ error: any Error, systemErrno: Int32 = 0) -> String {
        guard let error = error as? DatabaseError else { return String(describing: error) }
        var text: String
        switch error.resultCode {
        case .SQLITE_FULL: text = "the disk is full"
        // A full disk met while the shared memory or the log is made is an I/O error to SQLite.
        case .SQLITE_IOERR where systemErrno == ENOSPC: text = "the disk is full"
        case .SQLITE_READONLY: text = "it is read-only"
        case .SQLITE_CANTOPEN where systemErrno != 0: text = "its folder will not take it"
        case .SQLITE_CANTOPEN: text = "it cannot be opened (a missing or unwritable folder)"
        case .SQLITE_IOERR where systemErrno != 0: text = "the disk refused a write"
        case .SQLITE_PERM, .SQLITE_AUTH: text = "permission denied"
        case .SQLITE_BUSY, .SQLITE_LOCKED: text = "another walkscape holds it too long"
        case .SQLITE_CORRUPT, .SQLITE_NOTADB: text = "it is damaged"
        default: text = error.message ?? "SQLite error \(error.resultCode.rawValue)"
        }
        if systemErrno != 0 { text += " (\(String(cString: strerror(systemErrno))))" }
        return text
    }

    /// Whether another try may succeed once the disk changes.
    static func kind(of error: any Error) -> Kind {
        guard let error = error as? DatabaseError else { return .unwritable }
        switch error.resultCode {
        case .SQLITE_CORRUPT, .SQLITE_NOTADB: return .damaged
        default: return .unwritable
        }
    }
}
