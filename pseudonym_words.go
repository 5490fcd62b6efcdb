package kuis

// The words of Pseudonym, in a fixed order: an alias is an index into each,
// so a word is never removed, reordered or changed, only added at the end
// (which changes the aliases of every name: do it between terms, never while
// a class knows its aliases). Each list was read for words a child would be
// mocked with: no animal used as an insult (anjing, babi, monyet, kera,
// keledai, kerbau, tikus, ular, buaya...), none whose name says slow, fat,
// ugly or sly, none of a slang meaning (bajing, cupang, kupu-kupu), none of a
// body or of a skin colour (hitam, putih, cokelat), and none common as a
// given name (Indah, Lestari, Mutiara, Agung), so that no alias seems to name
// a classmate. pseudonym_test.go checks the lists against a banned list.

// pseudonymAnimals are the aliases' first words: animals of Indonesia and
// beyond, in their Indonesian names.
var pseudonymAnimals = [...]string{
	"Harimau", "Singa", "Macan", "Citah", "Jaguar", "Puma", "Beruang", "Panda", "Koala", "Kanguru",
	"Zebra", "Unta", "Kuda", "Rusa", "Kijang", "Menjangan", "Tapir", "Trenggiling", "Landak",
	"Berang-berang", "Tupai", "Kelinci", "Lumba-lumba", "Pesut", "Duyung", "Bison", "Anoa", "Okapi",
	"Lemur", "Tarsius", "Meerkat", "Armadillo", "Alpaka", "Antelop", "Cerpelai", "Garangan",
	"Binturung", "Rakun", "Wombat", "Platipus", "Orca", "Narwal", "Elang", "Rajawali", "Merak",
	"Kakatua", "Kenari", "Merpati", "Camar", "Bangau", "Flamingo", "Pelikan", "Penguin", "Kasuari",
	"Cendrawasih", "Jalak", "Kutilang", "Murai", "Kolibri", "Rangkong", "Enggang", "Alap-alap",
	"Walet", "Belibis", "Angsa", "Puyuh", "Pelatuk", "Cekakak", "Tekukur", "Impala", "Kepodang",
	"Manyar", "Branjangan", "Albatros", "Kondor", "Cendet", "Bayan", "Serindit", "Cucakrawa",
	"Srigunting", "Kuau", "Maleo", "Julang", "Gelatik", "Sikatan", "Cangak", "Trinil", "Kangkareng",
	"Prenjak", "Kipasan", "Sriti", "Penyu", "Komodo", "Iguana", "Salamander", "Naga", "Hiu", "Pari",
	"Salmon", "Kakap", "Arwana", "Koi", "Gurami", "Bandeng", "Marlin", "Todak", "Layaran", "Gurita",
	"Cumi-cumi", "Sotong", "Kepiting", "Rajungan", "Lobster", "Ubur-ubur", "Tenggiri", "Baronang",
	"Barakuda", "Kuwe", "Bawal", "Cucut", "Capung", "Lebah", "Semut", "Kumbang", "Belalang",
	"Kunang-kunang", "Tawon", "Laba-laba", "Kepik", "Kucing",
}

// pseudonymModifiers are the aliases' second words: colours, gems and
// metals, and good qualities.
var pseudonymModifiers = [...]string{
	"Merah", "Biru", "Hijau", "Kuning", "Jingga", "Ungu", "Lembayung", "Toska", "Magenta", "Indigo",
	"Perak", "Emas", "Tembaga", "Perunggu", "Zamrud", "Safir", "Rubi", "Giok", "Pirus", "Opal",
	"Topaz", "Pelangi", "Marun", "Lilak", "Zaitun", "Koral", "Akuamarin", "Ametis", "Garnet",
	"Kuarsa", "Platina", "Kobalt", "Berani", "Cerdas", "Ceria", "Gesit", "Lincah", "Tangkas",
	"Riang", "Bijak", "Jujur", "Tekun", "Ramah", "Sabar", "Cermat", "Hebat", "Kuat", "Tenang",
	"Cepat", "Sigap", "Gagah", "Perkasa", "Tangguh", "Setia", "Teliti", "Rajin", "Cekatan", "Kreatif",
	"Cemerlang", "Gemilang", "Bersinar", "Berkilau", "Ajaib", "Megah", "Elok", "Gembira", "Bahagia",
	"Damai", "Sejuk", "Hangat", "Segar", "Santun", "Sopan", "Peduli", "Tulus", "Ikhlas", "Lugas",
	"Tegas", "Tabah", "Ulet", "Gigih", "Giat", "Cakap", "Pintar", "Pandai", "Waspada", "Mandiri",
	"Kompak", "Sportif", "Cerah", "Terang", "Bening", "Jernih", "Abadi", "Handal", "Unggul", "Prima",
	"Kokoh", "Merdu", "Sehat", "Bugar", "Rukun", "Akrab", "Tertib", "Rapi", "Bersih", "Cendekia",
	"Cergas", "Piawai", "Mahir", "Terampil", "Jeli", "Tanggap", "Luhur", "Berseri", "Optimis",
	"Lihai", "Jitu", "Cerdik", "Disiplin", "Kilat", "Energik", "Aktif", "Tegar", "Tenteram",
	"Harmonis", "Inovatif", "Penyayang", "Pemaaf", "Gemerlap", "Benderang", "Trengginas", "Digdaya",
	"Bersemangat", "Antusias", "Ulung", "Amanah",
}
