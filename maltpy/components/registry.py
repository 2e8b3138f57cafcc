"""The registry of components: the name a model file stores -> the class that reads it back."""
from maltpy.components.parser import ParserComponent
from maltpy.components.tagger import TaggerComponent
from maltpy.components.tokenizer import TokenizerComponent

#: registry name (stored in model files) -> component class
COMPONENTS = {
    TokenizerComponent.name: TokenizerComponent,
    TaggerComponent.name: TaggerComponent,
    ParserComponent.name: ParserComponent,
}
