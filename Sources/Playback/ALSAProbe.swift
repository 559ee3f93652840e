import CALSA

/// Can this ALSA playback device be opened? For `doctor`: opens without blocking and closes again.
public enum ALSAProbe {
    public static func canOpen(device: String) -> Result<Void, PlaybackALSAOpenFailure> {
        PlaybackLibraries.silenceALSA()
        var handle: OpaquePointer?
        let rc = snd_pcm_open(&handle, device, SND_PCM_STREAM_PLAYBACK, Int32(SND_PCM_NONBLOCK))
        if rc < 0 {
            return .failure(PlaybackALSAOpenFailure(device: device, reason: String(cString: snd_strerror(rc))))
        }
        snd_pcm_close(handle)
        return .success(())
    }

    /// The sound cards alsa-lib sees (`card 0: PCH`), to tell "no card at all" from "wrong name".
    public static func cards() -> [String] {
        var result: [String] = []
        var card: Int32 = -1
        while snd_card_next(&card) == 0, card >= 0 {
            var name: UnsafeMutablePointer<CChar>?
            if snd_card_get_name(card, &name) == 0, let name {
                result.append("card \(card): \(String(cString: name))")
                free(name)
            } else {
                result.append("card \(card)")
            }
        }
        return result
    }
}

public struct PlaybackALSAOpenFailure: Error, Sendable, Hashable {
    public var device: String
    public var reason: String
}
