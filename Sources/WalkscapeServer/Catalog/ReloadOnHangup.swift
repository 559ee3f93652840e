import ServiceLifecycle
import UnixSignals

/// Re-reads the tour folders on SIGHUP.
struct ReloadOnHangup: Service {
    let catalog: TourCatalog
    let signals: UnixSignalsSequence

    func run() async throws {
        for await _ in signals.cancelOnGracefulShutdown() {
            await catalog.reload()
        }
    }
}
