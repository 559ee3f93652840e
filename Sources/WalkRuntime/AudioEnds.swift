import Walk

/// Narrations the player has reported ended, and whoever waits for one.
actor AudioEnds {
    private var ended: Set<String> = []
    private var waiters: [String: CheckedContinuation<Bool, Never>] = [:]

    func record(_ id: String) {
        if let waiter = waiters.removeValue(forKey: id) { waiter.resume(returning: true) } else { ended.insert(id) }
    }

    /// True when `id` ended (before or within `limit`), false when the time ran out or the
    /// waiting task was cancelled (a stopped preview does not wait out the grace period).
    func wait(for id: String, atMost limit: Duration) async -> Bool {
        if ended.remove(id) != nil { return true }
        let timer = Task { [weak self] in
            try await Task.sleep(for: limit)
            await self?.expire(id)
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled { continuation.resume(returning: false) } else { waiters[id] = continuation }
            }
        } onCancel: {
            Task { await self.expire(id) }
        }
    }

    private func expire(_ id: String) {
        waiters.removeValue(forKey: id)?.resume(returning: false)
    }
}
