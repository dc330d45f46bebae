/// Synthetic text in several scripts for the tokenizer-throughput workloads: sentences built from small fixed
/// character lists, deterministic, cut into ~1 KB documents. Not linguistically real, but with the script mix,
/// punctuation and token-length profile that drive a tokenizer's cost.
enum TextKind: String, CaseIterable, Sendable {
    case english, chinese, japanese, mixed
}

enum TextCorpus {
    /// Documents of about `documentBytes` UTF-8 bytes each, `totalBytes` in all.
    static func documents(_ kind: TextKind, totalBytes: Int, documentBytes: Int = 1_000,
                          vocabulary: Vocabulary) -> [String] {
        var rng = SeededGenerator(seed: 0x5EED_0100 &+ UInt64(TextKind.allCases.firstIndex(of: kind)!))
        var documents: [String] = []
        var total = 0
        while total < totalBytes {
            var document = ""
            while document.utf8.count < documentBytes {
                document += sentence(kind, vocabulary: vocabulary, &rng)
            }
            total += document.utf8.count
            documents.append(document)
        }
        return documents
    }

    static func sentence(_ kind: TextKind, vocabulary: Vocabulary, _ rng: inout SeededGenerator) -> String {
        switch kind {
        case .english:
            return vocabulary.sentence(words: rng.int(in: 8...20), &rng) + " "
        case .chinese:
            return chineseClauses(&rng, english: nil)
        case .mixed:
            return chineseClauses(&rng, english: vocabulary) + " "
        case .japanese:
            return japaneseSentence(&rng)
        }
    }

    // ~400 frequent Hanzi.
    private static let hanzi = Array(
        "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正名定女问力机给等几很业最间新什打便位因重被走电四第门相次东政海口使教西再平真听世气信北少关并内加化由却代军产入先山五太水万市眼体别处总才场师书比住员九笑性通目华报立马命张活难神数件安表原车白应路期叫死常提感金何更反合放做系计或司利受光王果亲界及今京务制解各任至清物台象记边共风战干接它许八特觉望直服毛林题建南度统色字请交爱让认算论百吃义科怎元社术结六功指思非流每青管夫连远资队跟带花快条院变联言权往展该领传近留红治决周保达办运武半候七必城父强步完革深区即求品士转量空甚众技轻程告江语英基派满式李息写呢识极令黄德收脸钱党倒未持取设始版双历越史商千片容研像找友孩站广改议形委早房音火际则首单据导影失拿网香似斯专石若兵弟谁校读志飞观争究包组造落视济喜离虽坏兴")
    private static let kanji = Array("日本人東京大学生会社時間電話食事仕事写真映画音楽天気新聞手紙言葉料理病院銀行駅道")
    private static let particles = ["の", "に", "は", "を", "が", "で", "と", "も", "から", "まで", "へ"]
    private static let endings = ["ます", "です", "でした", "ました", "ている", "たい", "ません", "だった"]
    private static let hiraganaWords = ["とても", "すこし", "いつも", "まだ", "もう", "たくさん", "ちょっと", "きれい"]
    private static let katakanaWords = ["コンピュータ", "データ", "システム", "テスト", "サーバー", "ネットワーク",
                                        "プログラム", "ファイル", "ユーザー", "メール", "インデックス", "タワー"]

    /// Chinese: 1-3 character words without spaces, clauses separated by "，", ending with "。"; with a
    /// vocabulary, about one word in four is an English word set off by spaces (mixed text).
    private static func chineseClauses(_ rng: inout SeededGenerator, english: Vocabulary?) -> String {
        var text = ""
        let clauses = rng.int(in: 1...3)
        for clause in 0..<clauses {
            if clause > 0 { text += "，" }
            for _ in 0..<rng.int(in: 3...8) {
                if let english, rng.below(4) == 0 {
                    text += " " + english.sample(&rng) + " "
                    continue
                }
                let length = [1, 2, 2, 2, 3][rng.below(5)]
                for _ in 0..<length { text.append(hanzi[rng.below(hanzi.count)]) }
            }
        }
        return text + "。"
    }

    /// Japanese: kanji compounds, katakana loan words and hiragana words joined by particles, with a verb ending.
    private static func japaneseSentence(_ rng: inout SeededGenerator) -> String {
        var text = ""
        for _ in 0..<rng.int(in: 2...5) {
            switch rng.below(4) {
            case 0: text += katakanaWords[rng.below(katakanaWords.count)]
            case 1: text += hiraganaWords[rng.below(hiraganaWords.count)]
            default:
                for _ in 0..<rng.int(in: 1...3) { text.append(kanji[rng.below(kanji.count)]) }
            }
            text += particles[rng.below(particles.count)]
        }
        for _ in 0..<rng.int(in: 1...2) { text.append(kanji[rng.below(kanji.count)]) }
        return text + endings[rng.below(endings.count)] + (rng.below(3) == 0 ? "、" : "。")
    }
}
