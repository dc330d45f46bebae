import Foundation
import SiftICUCore

/// Text in other charsets than UTF-8, through ICU's charset detector (`ucsdet`) and converters (`ucnv`).
///
///     let decoded = TextDecoding.decode(latin1Bytes)        // ("café crème …", "ISO-8859-1", 44)
///     let page = TextDecoding.decode(html, declared: "windows-1252")
///
/// Charset names are ICU's ("ISO-8859-1", "windows-1252", "Shift_JIS", "GB18030", ...); any alias ICU knows is
/// accepted as input ("latin1", "sjis", "gbk"). Safe to call from any thread.
public enum TextDecoding {
    /// Text decoded from bytes that were not UTF-8.
    public struct Decoded: Sendable, Hashable {
        /// The text.
        public var text: String
        /// The charset it was read as.
        public var charset: String
        /// How sure the choice is, 0-100: ICU's detection confidence, or 100 for a declared charset.
        public var confidence: Int

        /// Text read as `charset` with `confidence`.
        public init(text: String, charset: String, confidence: Int) {
            self.text = text
            self.charset = charset
            self.confidence = confidence
        }
    }

    /// The lowest detection confidence ``decode(_:declared:minimumConfidence:)`` accepts by default. ICU's
    /// detector reports 10-30 for short or ambiguous but genuine text; binary data usually gets no match at all.
    public static let defaultMinimumConfidence = 10

    /// Decodes bytes that are not UTF-8: in the `declared` charset (an HTML `<meta charset>` or XML declaration,
    /// say) when ICU knows it and it fits the bytes (a declaration that at most 2% of the bytes contradict;
    /// UTF-8, UTF-16 and UTF-32 declarations are ignored, ISO-8859-1 and US-ASCII read as windows-1252 as browsers do), else in
    /// the detected charset when its confidence is at least `minimumConfidence`. Nil when nothing fits.
    ///
    /// Valid UTF-8 needs no call: this always goes through ICU.
    public static func decode(_ data: Data, declared: String? = nil,
                              minimumConfidence: Int = defaultMinimumConfidence) -> Decoded? {
        guard data.count < Int(Int32.max) else { return nil }
        var name = [CChar](repeating: 0, count: 64)
        var confidence: Int32 = 0
        var output: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        let rc = data.withUnsafeBytes { buffer in
            sift_icu_transcode(buffer.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(buffer.count), declared,
                               Int32(clamping: minimumConfidence), &output, &length, &name, Int32(name.count), &confidence)
        }
        defer { sift_icu_free(output) }
        guard rc == SIFT_ICU_OK, let output else { return nil }
        return Decoded(text: text(output, length), charset: string(name), confidence: Int(confidence))
    }

    /// The likeliest charset of `data` and ICU's confidence in it (0-100), or nil when no charset fits.
    /// Markup in angle brackets is ignored when enough text remains without it; at most 64 KB are read,
    /// starting shortly before the first non-ASCII byte.
    public static func detectCharset(_ data: Data) -> (charset: String, confidence: Int)? {
        guard data.count < Int(Int32.max) else { return nil }
        var name = [CChar](repeating: 0, count: 64)
        var confidence: Int32 = 0
        let rc = data.withUnsafeBytes { buffer in
            sift_icu_detect_charset(buffer.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(buffer.count), nil,
                                    &name, Int32(name.count), &confidence)
        }
        guard rc == SIFT_ICU_OK else { return nil }
        return (string(name), Int(confidence))
    }

    /// `data` read in `charset`, with the number of byte sequences that were invalid or unmapped there (each
    /// became U+FFFD); nil when ICU knows no such charset.
    public static func convert(_ data: Data, from charset: String) -> (text: String, substitutions: Int)? {
        guard data.count < Int(Int32.max) else { return nil }
        var output: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        var substitutions: Int32 = 0
        let rc = data.withUnsafeBytes { buffer in
            sift_icu_convert_to_utf8(buffer.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(buffer.count),
                                     charset, &output, &length, &substitutions)
        }
        defer { sift_icu_free(output) }
        guard rc == SIFT_ICU_OK, let output else { return nil }
        return (text(output, length), Int(substitutions))
    }

    private static func text(_ bytes: UnsafeMutablePointer<CChar>, _ length: Int32) -> String {
        let buffer = UnsafeRawBufferPointer(start: bytes, count: Int(max(0, length)))
        return String(decoding: buffer.bindMemory(to: UInt8.self), as: UTF8.self)
    }

    private static func string(_ name: [CChar]) -> String {
        String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
