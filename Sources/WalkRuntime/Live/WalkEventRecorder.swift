import Foundation
import Walk

/// Where a live walk's analytics events go, behind `WalkStateWriter`: the command line gives the
/// analytics outbox (Walk knows nothing of it), in-process tests the JSON-lines `EventJournal`.
///
/// `append` is synchronous and durable: when it returns, the event survives a crash. When it
/// throws (a full or read-only disk), the writer holds the event in memory, in order, with its id
/// fixed, and tries again later, so an implementation may be called again with the same `eventID`
/// and must then keep one copy.
public protocol WalkEventRecorder: Sendable {
    func append(_ event: WalkEvent, eventID: UUID) throws(WalkError)
}

extension EventJournal: WalkEventRecorder {}
