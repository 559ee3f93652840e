/// What a download tells the person waiting for it (the command line renders it as a live line,
/// plain lines or JSON lines).
public enum DownloadEvent: Sendable {
    /// The files about to be fetched: how many, how many bytes in all, and how many of those are
    /// already in part files from an earlier run.
    case started(files: Int, bytes: Int64, resumedBytes: Int64)
    /// More bytes arrived.
    case received(Int64)
    /// A file is complete, checked and in the store.
    case fileDone(label: String, bytes: Int64)
    /// Something failed and is being tried again (a broken connection, a busy service).
    case retrying(label: String, reason: String)
    /// A signed URL expired, or the media host refused it or did not find it (`why`, in a few
    /// words): a new manifest was fetched and the file goes on from the same byte.
    case linkRenewed(label: String, atByte: Int64, why: String)
    /// Every file is in: nothing more arrives (the narrations may still be being checked).
    case transfersEnded
    /// The tour now plays the new version.
    case switched(languages: [String])
}
